/** The parts of a zod 4 schema's `def` that walking a schema reads. */
export interface ZodDef {
  type?: string;
  shape?: Record<string, unknown>;
  element?: unknown;
  innerType?: unknown;
  valueType?: unknown;
  options?: unknown[];
  in?: unknown;
  out?: unknown;
}

/** Schema types that only wrap another (`innerType`): what a value must be is the inner schema's. */
export const ZOD_WRAPPERS: ReadonlySet<string> = new Set(['optional', 'nullable', 'default', 'readonly', 'nonoptional', 'prefault', 'catch']);

export const zodDefOf = (schema: unknown): ZodDef | undefined => (schema as { def?: ZodDef } | undefined)?.def;
