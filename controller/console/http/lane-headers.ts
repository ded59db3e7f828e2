/** The request headers the fast lanes read, each as its one value. */
export type LaneHeaders = {
  authorization: string | undefined;
  'x-api-key': string | undefined;
  'content-type': string | undefined;
  'content-length': string | undefined;
  origin: string | undefined;
  'transfer-encoding': string | undefined;
  'if-none-match': string | undefined;
  'x-request-id': string | undefined;
};

/** The names above; other headers are skipped without lower-casing their names unless their length matches one. */
const NAMES = new Set<string>(['authorization', 'x-api-key', 'content-type', 'content-length', 'origin', 'transfer-encoding', 'if-none-match', 'x-request-id']);
const LENGTHS = new Set([...NAMES].map((name) => name.length));

/**
 * The headers a fast lane reads, from the request's raw list, without `request.headers`: Node builds
 * that object header by header through property stores that a console's varied traffic makes
 * megamorphic, a measurable part of an evaluation's CPU. Undefined when one of them comes more than
 * once: Node would join or drop the repeats, and the lane leaves such a request to Fastify's route,
 * which reads `request.headers` as always.
 */
export function laneHeaders(raw: readonly string[]): LaneHeaders | undefined {
  const out: LaneHeaders = {
    authorization: undefined,
    'x-api-key': undefined,
    'content-type': undefined,
    'content-length': undefined,
    origin: undefined,
    'transfer-encoding': undefined,
    'if-none-match': undefined,
    'x-request-id': undefined,
  };
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    if (!LENGTHS.has(name.length)) continue;
    const lower = name.toLowerCase();
    if (!NAMES.has(lower)) continue;
    const key = lower as keyof LaneHeaders;
    if (out[key] !== undefined) return undefined;
    out[key] = raw[i + 1];
  }
  return out;
}
