/**
 * Registry of the entity schemas: what the config repository, the JSON Schema generator and the
 * reconciler need to know of each kind. Listed in dependency order (what others refer to first).
 */
import type { z } from 'zod';
import { DYNAMIC_CONFIG_DEFAULTS, DynamicConfigCreateSchema, DynamicConfigSchema } from './dynamic-config.js';
import { GATE_DEFAULTS, GateCreateSchema, GateSchema } from './gate.js';
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
}

export const ENTITY_SCHEMAS: readonly EntitySchemaEntry[] = [
  { kind: 'segment', folder: 'segments', idField: 'id', create: SegmentCreateSchema, response: SegmentSchema, defaults: SEGMENT_DEFAULTS },
  { kind: 'gate', folder: 'gates', idField: 'id', create: GateCreateSchema, response: GateSchema, defaults: GATE_DEFAULTS },
  { kind: 'dynamic_config', folder: 'dynamic_configs', idField: 'id', create: DynamicConfigCreateSchema, response: DynamicConfigSchema, defaults: DYNAMIC_CONFIG_DEFAULTS },
];
