import type { ConfigSpecsService } from '../config-specs-service.js';
import type { FastLane, FastLaneCounter } from '../http/fast-lane.js';
import type { SdkKeyAuth } from '../sdk-key-auth.js';
import type { ChangeMarks } from '../../store/ports.js';
import { SPECS_CACHE_CONTROL, SPECS_GET_ROUTE, SPECS_JSON_TYPE, specsReply } from './statsig-specs-reply.js';

export interface SpecsFastLaneDeps {
  keys: SdkKeyAuth;
  specs: ConfigSpecsService;
  /** The store's change marks, read once for the key and the specs. */
  marks: () => ChangeMarks | undefined;
}

const PREFIX = '/v1/download_config_specs/';
const SINCE = '?sinceTime=';
const KEY = /^[A-Za-z0-9_-]{1,200}$/;
const DIGITS = /^\d{1,16}$/;

/** `<key>.json` or `<key>`, then nothing or `?sinceTime=<digits>` (what the SDKs send); else undefined. */
function plainDownload(rest: string): { secret: string; sinceTime: string | undefined } | undefined {
  const query = rest.indexOf('?');
  const file = query < 0 ? rest : rest.slice(0, query);
  const sinceTime = query < 0 ? undefined : rest.startsWith(SINCE, query) ? rest.slice(query + SINCE.length) : '';
  if (sinceTime !== undefined && !DIGITS.test(sinceTime)) return undefined;
  const secret = file.endsWith('.json') ? file.slice(0, -'.json'.length) : file;
  return KEY.test(secret) ? { secret, sinceTime } : undefined;
}

/**
 * The Statsig SDKs' poll, `GET /v1/download_config_specs/{key}.json[?sinceTime=N]`, for a SERVER key
 * and specs already resolved: nearly every request an SDK sends. Anything else (a new key, another
 * query, HEAD) is Fastify's route's, which answers with the same `specsReply`.
 */
export function specsFastLane(deps: SpecsFastLaneDeps, counter: FastLaneCounter = { served: 0 }): FastLane {
  return (request, response, kit) => {
    if (request.method !== 'GET') return false;
    const url = request.url ?? '';
    if (!url.startsWith(PREFIX)) return false;
    const download = plainDownload(url.slice(PREFIX.length));
    if (download === undefined) return false;
    const marks = deps.marks();
    const key = deps.keys.cached(download.secret, ['SERVER'], marks);
    const compiled = key && deps.specs.cached(key, marks);
    if (!compiled) return false;
    const sinceTime = download.sinceTime === undefined ? undefined : Number(download.sinceTime);
    if (sinceTime !== undefined && !Number.isSafeInteger(sinceTime)) return false;

    counter.served += 1;
    const startedAt = performance.now();
    const reqId = kit.requestId(request.headers['x-request-id']);
    const answer = specsReply(compiled, sinceTime);
    const length = Buffer.byteLength(answer.body);
    // Literal header objects, one shape each: no spread or added property to build per request.
    if (answer.serverTiming === undefined) {
      response.writeHead(200, { 'x-request-id': reqId, 'x-content-type-options': 'nosniff', 'cache-control': SPECS_CACHE_CONTROL, 'content-type': SPECS_JSON_TYPE, 'content-length': length });
    } else {
      response.writeHead(200, { 'x-request-id': reqId, 'x-content-type-options': 'nosniff', 'cache-control': SPECS_CACHE_CONTROL, 'content-type': SPECS_JSON_TYPE, 'server-timing': answer.serverTiming, 'content-length': length });
    }
    response.end(answer.body);
    kit.answered(reqId, 'GET', SPECS_GET_ROUTE, 200, startedAt);
    return true;
  };
}
