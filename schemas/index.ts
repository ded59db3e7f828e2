/**
 * The entity kinds: the one declaration of each, read by every layer (the console's routes and
 * services, the reconciler's folders and order, the bridge, the web console, the JSON Schema
 * generator). Listed in dependency order (what others refer to first): creates run in this order,
 * deletes in reverse. A new kind is an entry here plus its schema file; what the console does beyond
 * create, read, update and delete goes in controller/console/kinds, its rules beyond zod in
 * controller/core/entity-rules.ts.
 */
import type { z } from 'zod';
import { ASSIGNMENT_SOURCE_DEFAULTS, AssignmentSourceCreateRequestSchema, AssignmentSourceCreateSchema, AssignmentSourcePatchSchema, AssignmentSourceSchema, AssignmentSourceUpdateSchema } from './assignment-source.js';
import { DYNAMIC_CONFIG_DEFAULTS, DynamicConfigCreateSchema, DynamicConfigPatchSchema, DynamicConfigSchema, DynamicConfigUpdateSchema } from './dynamic-config.js';
import { EXPERIMENT_DEFAULTS, ExperimentCreateSchema, ExperimentPatchSchema, ExperimentSchema, ExperimentUpdateSchema } from './experiment.js';
import { GATE_DEFAULTS, GateCreateSchema, GatePatchSchema, GateSchema, GateUpdateSchema } from './gate.js';
import { HOLDOUT_DEFAULTS, HoldoutCreateSchema, HoldoutPatchSchema, HoldoutSchema, HoldoutUpdateSchema } from './holdout.js';
import { LAYER_DEFAULTS, LayerCreateSchema, LayerPatchSchema, LayerSchema, LayerUpdateSchema } from './layer.js';
import { PROMPT_DEFAULTS, PromptCreateSchema, PromptPatchSchema, PromptSchema } from './prompt.js';
import { SEGMENT_DEFAULTS, SegmentCreateSchema, SegmentPatchSchema, SegmentSchema, SegmentUpdateSchema } from './segment.js';

export interface EntitySchemaEntry {
  /** Store kind and webhook config_type. */
  kind: string;
  /** Config-repo folder and API path segment (/console/v1/<folder>), except where apiPath differs. */
  folder: string;
  /** List/create path under /console/v1 when it differs from folder. */
  apiPath?: string;
  /** Item path under /console/v1 when it differs from the list path. */
  itemPath?: string;
  /** Field that identifies the entity and names its file. */
  idField: 'id' | 'name';
  /** Singular label for messages and pages: "Gate not found." */
  label: string;
  /** Plural label: the OpenAPI tag and the web console's menu. */
  plural: string;
  /** Request body of a create: the vocabulary of a YAML file. */
  create: z.ZodType;
  /** The API's create body when it takes more than a file says (a `dryRun` flag). */
  createRequest?: z.ZodType;
  /** Body of a full update (POST /{path}/{id}); absent: the kind has none. */
  update?: z.ZodType;
  /** Body of a partial update (PATCH /{path}/{id}); absent: the kind has none. */
  patch?: z.ZodType;
  response: z.ZodType;
  /** Values of writable fields that a file may leave out. */
  defaults: Record<string, unknown>;
  /** false: the console has no delete for the kind (AI configs, as in the reference), so nothing prunes one. */
  deletable?: false;
  /** Changed through reviews, and what the pre-commit webhook (and so the bridge) judges. */
  reviewable?: true;
  /** Has PUT .../archive and .../unarchive: its files may say `archived: true`. */
  archivable?: true;
}

export const ENTITY_SCHEMAS: readonly EntitySchemaEntry[] = [
  {
    kind: 'segment',
    folder: 'segments',
    idField: 'id',
    label: 'Segment',
    plural: 'Segments',
    create: SegmentCreateSchema,
    update: SegmentUpdateSchema,
    patch: SegmentPatchSchema,
    response: SegmentSchema,
    defaults: SEGMENT_DEFAULTS,
    reviewable: true,
    archivable: true,
  },
  {
    kind: 'gate',
    folder: 'gates',
    idField: 'id',
    label: 'Gate',
    plural: 'Gates',
    create: GateCreateSchema,
    update: GateUpdateSchema,
    patch: GatePatchSchema,
    response: GateSchema,
    defaults: GATE_DEFAULTS,
    reviewable: true,
    archivable: true,
  },
  {
    kind: 'dynamic_config',
    folder: 'dynamic_configs',
    idField: 'id',
    label: 'Dynamic config',
    plural: 'Dynamic configs',
    create: DynamicConfigCreateSchema,
    update: DynamicConfigUpdateSchema,
    patch: DynamicConfigPatchSchema,
    response: DynamicConfigSchema,
    defaults: DYNAMIC_CONFIG_DEFAULTS,
    reviewable: true,
    archivable: true,
  },
  { kind: 'layer', folder: 'layers', idField: 'id', label: 'Layer', plural: 'Layers', create: LayerCreateSchema, update: LayerUpdateSchema, patch: LayerPatchSchema, response: LayerSchema, defaults: LAYER_DEFAULTS },
  // Before experiments, which name them (assignmentSourceName).
  {
    kind: 'assignment_source',
    folder: 'assignment_sources',
    apiPath: 'experiments/assignment_sources',
    itemPath: 'experiments/assignment_source',
    idField: 'name',
    label: 'Assignment source',
    plural: 'Assignment sources',
    create: AssignmentSourceCreateSchema,
    createRequest: AssignmentSourceCreateRequestSchema,
    update: AssignmentSourceUpdateSchema,
    patch: AssignmentSourcePatchSchema,
    response: AssignmentSourceSchema,
    defaults: ASSIGNMENT_SOURCE_DEFAULTS,
  },
  {
    kind: 'experiment',
    folder: 'experiments',
    idField: 'id',
    label: 'Experiment',
    plural: 'Experiments',
    create: ExperimentCreateSchema,
    update: ExperimentUpdateSchema,
    patch: ExperimentPatchSchema,
    response: ExperimentSchema,
    defaults: EXPERIMENT_DEFAULTS,
    reviewable: true,
    archivable: true,
  },
  { kind: 'holdout', folder: 'holdouts', idField: 'id', label: 'Holdout', plural: 'Holdouts', create: HoldoutCreateSchema, update: HoldoutUpdateSchema, patch: HoldoutPatchSchema, response: HoldoutSchema, defaults: HOLDOUT_DEFAULTS },
  // Keyed by name: the response's id equals the name, and the file is prompts/<name>.yaml. AI configs
  // have no full update and no delete, as in the reference.
  { kind: 'prompt', folder: 'prompts', idField: 'name', label: 'AI config', plural: 'AI configs', create: PromptCreateSchema, patch: PromptPatchSchema, response: PromptSchema, defaults: PROMPT_DEFAULTS, deletable: false },
];
