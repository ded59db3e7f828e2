/**
 * Registry of the entity schemas: what the config repository, the JSON Schema generator and the
 * reconciler need to know of each kind. Listed in dependency order (what others refer to first).
 */
import type { z } from 'zod';
import { ASSIGNMENT_SOURCE_DEFAULTS, AssignmentSourceCreateSchema, AssignmentSourceSchema } from './assignment-source.js';
import { DYNAMIC_CONFIG_DEFAULTS, DynamicConfigCreateSchema, DynamicConfigSchema } from './dynamic-config.js';
import { EXPERIMENT_DEFAULTS, ExperimentCreateSchema, ExperimentSchema } from './experiment.js';
import { GATE_DEFAULTS, GateCreateSchema, GateSchema } from './gate.js';
import { HOLDOUT_DEFAULTS, HoldoutCreateSchema, HoldoutSchema } from './holdout.js';
import { LAYER_DEFAULTS, LayerCreateSchema, LayerSchema } from './layer.js';
import { PROMPT_DEFAULTS, PromptCreateSchema, PromptSchema } from './prompt.js';
import { SEGMENT_DEFAULTS, SegmentCreateSchema, SegmentSchema } from './segment.js';

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
  /** Request body of a create: the vocabulary of a YAML file. */
  create: z.ZodType;
  response: z.ZodType;
  /** Values of writable fields that a file may leave out. */
  defaults: Record<string, unknown>;
  /** false: the console has no delete for the kind (AI configs, as in the reference), so nothing prunes one. */
  deletable?: false;
}

export const ENTITY_SCHEMAS: readonly EntitySchemaEntry[] = [
  { kind: 'segment', folder: 'segments', idField: 'id', create: SegmentCreateSchema, response: SegmentSchema, defaults: SEGMENT_DEFAULTS },
  { kind: 'gate', folder: 'gates', idField: 'id', create: GateCreateSchema, response: GateSchema, defaults: GATE_DEFAULTS },
  { kind: 'dynamic_config', folder: 'dynamic_configs', idField: 'id', create: DynamicConfigCreateSchema, response: DynamicConfigSchema, defaults: DYNAMIC_CONFIG_DEFAULTS },
  { kind: 'layer', folder: 'layers', idField: 'id', create: LayerCreateSchema, response: LayerSchema, defaults: LAYER_DEFAULTS },
  {
    kind: 'assignment_source',
    folder: 'assignment_sources',
    apiPath: 'experiments/assignment_sources',
    itemPath: 'experiments/assignment_source',
    idField: 'name',
    create: AssignmentSourceCreateSchema,
    response: AssignmentSourceSchema,
    defaults: ASSIGNMENT_SOURCE_DEFAULTS,
  },
  { kind: 'experiment', folder: 'experiments', idField: 'id', create: ExperimentCreateSchema, response: ExperimentSchema, defaults: EXPERIMENT_DEFAULTS },
  { kind: 'holdout', folder: 'holdouts', idField: 'id', create: HoldoutCreateSchema, response: HoldoutSchema, defaults: HOLDOUT_DEFAULTS },
  // Keyed by name: the response's id equals the name, and the file is prompts/<name>.yaml.
  { kind: 'prompt', folder: 'prompts', idField: 'name', create: PromptCreateSchema, response: PromptSchema, defaults: PROMPT_DEFAULTS, deletable: false },
];
