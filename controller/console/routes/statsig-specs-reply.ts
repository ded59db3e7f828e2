import { InputError } from '../../errors.js';
import type { CompiledSpecs } from '../config-specs-service.js';

export const SPECS_JSON_TYPE = 'application/json; charset=utf-8';

/** The route pattern of the SDKs' GET download, as Fastify names it in `/metrics`. */
export const SPECS_GET_ROUTE = '/v1/download_config_specs/:file';

/** Sent with every download: the answer holds a key's flags, which no cache may keep. */
export const SPECS_CACHE_CONTROL = 'no-store';

export interface SpecsReply {
  body: string | Buffer;
  /** With the full specs: what the current specs took to build, for operators watching rebuilds after writes. */
  serverTiming: string | undefined;
}

/**
 * The download an SDK gets, on both paths (Fastify's route and the fast lane), sent with
 * `SPECS_CACHE_CONTROL` and `SPECS_JSON_TYPE`: the specs, or `{ has_updates: false }` when nothing
 * was written since its `sinceTime`.
 */
export function specsReply(compiled: CompiledSpecs, sinceTime: number | undefined): SpecsReply {
  const unchanged = sinceTime !== undefined && sinceTime >= compiled.time && compiled.time > 0;
  if (unchanged) return { body: compiled.unchangedBody, serverTiming: undefined };
  const { loadMs, compileMs } = compiled.timings;
  return { body: compiled.body, serverTiming: `load;dur=${loadMs.toFixed(1)}, compile;dur=${compileMs.toFixed(1)}` };
}

/** `sinceTime` as a query parameter or body field: absent, or a non-negative integer (epoch ms). */
export function sinceTimeOf(value: unknown, where: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const number = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0) {
    throw new InputError(`Invalid ${where}.`, [{ property: 'sinceTime', errorMessage: 'must be a non-negative integer (epoch milliseconds)' }]);
  }
  return number;
}
