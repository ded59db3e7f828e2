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

/** Lengths of the names above: other headers are skipped without lower-casing their names. */
const LENGTHS = new Set([13, 9, 12, 14, 6, 17]);

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
    const value = raw[i + 1] as string;
    switch (name.toLowerCase()) {
      case 'authorization':
        if (out.authorization !== undefined) return undefined;
        out.authorization = value;
        break;
      case 'x-api-key':
        if (out['x-api-key'] !== undefined) return undefined;
        out['x-api-key'] = value;
        break;
      case 'content-type':
        if (out['content-type'] !== undefined) return undefined;
        out['content-type'] = value;
        break;
      case 'content-length':
        if (out['content-length'] !== undefined) return undefined;
        out['content-length'] = value;
        break;
      case 'origin':
        if (out.origin !== undefined) return undefined;
        out.origin = value;
        break;
      case 'transfer-encoding':
        if (out['transfer-encoding'] !== undefined) return undefined;
        out['transfer-encoding'] = value;
        break;
      case 'if-none-match':
        if (out['if-none-match'] !== undefined) return undefined;
        out['if-none-match'] = value;
        break;
      case 'x-request-id':
        if (out['x-request-id'] !== undefined) return undefined;
        out['x-request-id'] = value;
        break;
    }
  }
  return out;
}
