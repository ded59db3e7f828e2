/**
 * The compiled form every evaluation surface shares: the "config specs" the Statsig server SDKs
 * download (`download_config_specs`). The console compiles its entities into this shape; the
 * engine evaluates it; `statsig-node` reads the same JSON unmodified, so both answer alike.
 * Field names are the wire format's, hence the snake_case at the top level.
 */

/** One condition of a rule. `type` and `operator` are the SDK's vocabulary (`user_field`, `any`, …). */
export interface SpecCondition {
  type: string;
  targetValue: unknown;
  operator: string | null;
  field: string | null;
  additionalValues: Record<string, unknown> | null;
  idType: string;
}

/** One rule: all its conditions must pass, then the unit is bucketed against `passPercentage`. */
export interface SpecRule {
  name: string;
  id: string;
  salt: string;
  passPercentage: number;
  conditions: SpecCondition[];
  returnValue: unknown;
  idType: string;
  /** An experiment's name when a layer rule hands the unit to that experiment. */
  configDelegate?: string | null;
  isExperimentGroup?: boolean;
  groupName?: string | null;
}

/** A gate, dynamic config, experiment, segment, holdout or layer, compiled. */
export interface ConfigSpec {
  name: string;
  /** `feature_gate` | `dynamic_config` */
  type: string;
  salt: string;
  enabled: boolean;
  defaultValue: unknown;
  idType: string;
  rules: SpecRule[];
  /** `feature_gate` | `dynamic_config` | `experiment` | `layer` | `segment` | `holdout` | `autotune` */
  entity: string;
  isActive?: boolean;
  hasSharedParams?: boolean;
  explicitParameters?: string[] | null;
  targetAppIDs?: string[];
  version?: number;
}

/** The whole download, as `GET /v1/download_config_specs/{key}.json` answers it. */
export interface ConfigSpecs {
  has_updates: boolean;
  time: number;
  feature_gates: ConfigSpec[];
  dynamic_configs: ConfigSpec[];
  layer_configs: ConfigSpec[];
  /** layer name → names of the experiments in it */
  layers: Record<string, string[]>;
  /** id list name → true, for the lists the specs refer to (fetched through `get_id_lists`) */
  id_lists?: Record<string, boolean>;
  default_environment?: string | null;
  /** The SDK key's primary target app: what a `target_app` condition compares. */
  app_id?: string;
}
