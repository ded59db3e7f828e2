/**
 * JSON values that clients write freely (return values, default values, parameter values). JSON has
 * no Infinity or NaN, yet a body's `1e309`, a YAML `.inf` or a JSON5 `Infinity` parse to them: kept,
 * they would be stored as `null` (what JSON.stringify makes of them) and break the entity's own
 * schema on its next write. Every such value is checked here, once, with the path of the number.
 */
import { z } from 'zod';

export const NON_FINITE_MESSAGE = 'must be a finite number (Infinity and NaN are not JSON)';

/** How many offending numbers one value reports; past that, the rest add nothing a client can use. */
const MAX_REPORTED = 20;

interface Step {
  value: unknown;
  key: string | number | undefined;
  parent: Step | undefined;
}

function pathOf(step: Step): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Step | undefined = step; at?.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * Paths, relative to the value, of every non-finite number in it (at most MAX_REPORTED). Walks with an
 * explicit stack and parent links, so a body of a megabyte, which can nest far deeper than the call
 * stack allows, costs time and memory in proportion to its size.
 */
export function nonFiniteNumberPaths(value: unknown): (string | number)[][] {
  const found: (string | number)[][] = [];
  const stack: Step[] = [{ value, key: undefined, parent: undefined }];
  while (stack.length > 0 && found.length < MAX_REPORTED) {
    const step = stack.pop() as Step;
    const current = step.value;
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) found.push(pathOf(step));
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], key: i, parent: step });
    } else if (typeof current === 'object' && current !== null) {
      const keys = Object.keys(current);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        stack.push({ value: (current as Record<string, unknown>)[key], key, parent: step });
      }
    }
  }
  return found;
}

/** `['price', 0, 'amount']` → `price[0].amount`, as the API names properties. */
export function formatJsonPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out === '' ? part : `.${part}`;
  return out;
}

/**
 * The error of a union with numbers among its options: for a value that is or holds Infinity or NaN
 * it says why instead of zod's bare "Invalid input" (a union names no inner path, so the message
 * does); otherwise zod's own message.
 */
export function nonFiniteUnionError(issue: { input?: unknown }): string | undefined {
  const [first] = nonFiniteNumberPaths(issue.input);
  if (first === undefined) return undefined;
  return first.length === 0 ? NON_FINITE_MESSAGE : `at ${formatJsonPath(first)} ${NON_FINITE_MESSAGE}`;
}

function rejectNonFinite(value: unknown, ctx: z.RefinementCtx): void {
  for (const path of nonFiniteNumberPaths(value)) ctx.addIssue({ code: 'custom', path, message: NON_FINITE_MESSAGE, input: value });
}

/** A JSON object (return values, default values, parameter values); no Infinity or NaN anywhere in it. */
export const JsonObjectSchema = z.record(z.string(), z.unknown()).superRefine(rejectNonFinite).describe('A JSON object.');

/** A JSON array of any values; no Infinity or NaN anywhere in it. */
export const JsonArraySchema = z.array(z.unknown()).superRefine(rejectNonFinite);

/**
 * The finiteness refinements of JsonObjectSchema and JsonArraySchema (every clone of them, `.optional()`
 * or `.describe()`, shares the check object), for fast paths that know what they check.
 */
export const NON_FINITE_CHECKS: ReadonlySet<unknown> = new Set([JsonObjectSchema.def.checks?.[0], JsonArraySchema.def.checks?.[0]].filter((c) => c !== undefined));
