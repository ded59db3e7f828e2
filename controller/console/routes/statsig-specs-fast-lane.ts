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
const JSON_SUFFIX = '.json';
const KEY_MAX = 200;
const SINCE_DIGITS_MAX = 16;
const SERVER_ONLY = ['SERVER'] as const;

/** A character of an SDK key: A-Z, a-z, 0-9, `_` or `-`. */
function isKeyChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2d;
}

/**
 * `PREFIX<key>.json` or `PREFIX<key>`, then nothing or `?sinceTime=<digits>` (what the SDKs send);
 * else undefined. Scanned once by character: regular expressions and Number() per poll cost more
 * than the rest of what the lane reads.
 */
export function plainDownload(url: string): { secret: string; sinceTime: number | undefined } | undefined {
  let i = PREFIX.length;
  while (i < url.length && isKeyChar(url.charCodeAt(i))) i++;
  const keyEnd = i;
  if (keyEnd === PREFIX.length || keyEnd - PREFIX.length > KEY_MAX) return undefined;
  if (url.startsWith(JSON_SUFFIX, i)) i += JSON_SUFFIX.length;
  if (i === url.length) return { secret: url.slice(PREFIX.length, keyEnd), sinceTime: undefined };
  if (!url.startsWith(SINCE, i)) return undefined;
  i += SINCE.length;
  const digits = url.length - i;
  if (digits < 1 || digits > SINCE_DIGITS_MAX) return undefined;
  let sinceTime = 0;
  for (; i < url.length; i++) {
    const d = url.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return undefined;
    sinceTime = sinceTime * 10 + d;
  }
  // Past 2^53 the sum is inexact, but then above every safe integer too.
  return Number.isSafeInteger(sinceTime) ? { secret: url.slice(PREFIX.length, keyEnd), sinceTime } : undefined;
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
    const download = plainDownload(url);
    if (download === undefined) return false;
    const marks = deps.marks();
    const key = deps.keys.cached(download.secret, SERVER_ONLY, marks);
    const compiled = key && deps.specs.cached(key, marks);
    if (!compiled) return false;

    counter.served += 1;
    const startedAt = performance.now();
    const reqId = kit.requestId(request.headers['x-request-id']);
    const answer = specsReply(compiled, download.sinceTime);
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
