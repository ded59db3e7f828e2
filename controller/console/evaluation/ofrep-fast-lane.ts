import type { ServerResponse } from 'node:http';
import { parseJsonBody } from '../http/json-body-parser.js';
import type { FastLane, FastLaneCounter } from '../http/fast-lane.js';
import type { CompiledSpecsCache } from './compiled-specs.js';
import { BULK_ROUTE, JSON_TYPE, OFREP_BODY_LIMIT, SDK_KEY_TYPES, SINGLE_ROUTE, bearerOf, bulkNotModified, bulkReply, contextOf, ofrepFailure, singleReply, type OfrepReply } from './ofrep-answers.js';
import type { SdkKeyAuth } from '../sdk-key-auth.js';
import type { ChangeMarks } from '../../store/ports.js';

export interface OfrepFastLaneDeps {
  keys: SdkKeyAuth;
  specs: CompiledSpecsCache;
  /** The store's change marks, read once for the key and the specs. */
  marks: () => ChangeMarks | undefined;
}

/** A flag key the lane routes itself: one Fastify's router passes on as it is (no escapes, no query). */
function plainKey(key: string): boolean {
  if (key.length === 0 || key.length > 200) return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c === 0x25 || c === 0x3f || c === 0x23) return false; // % ? #
  }
  return true;
}

/**
 * OFREP evaluations of applications whose key and specs are already resolved: a plain JSON POST
 * from a server (no CORS), with a Content-Length within the limit and a plain flag key. Anything else
 * (a new key, a browser's request, chunked or oversized bodies) is Fastify's, in ofrep-routes.ts.
 * Once taken, the body is parsed as Fastify's parser does and every answer, error or not, comes from
 * ofrep-answers.ts as on Fastify's path.
 */
export function ofrepFastLane(deps: OfrepFastLaneDeps, counter: FastLaneCounter = { served: 0 }): FastLane {
  return (request, response, kit) => {
    if (request.method !== 'POST') return false;
    const url = request.url ?? '';
    const single = url.startsWith(SINGLE_PREFIX);
    if (!single && url !== BULK_ROUTE) return false;
    const flagKey = single ? url.slice(SINGLE_PREFIX.length) : undefined;
    if (flagKey !== undefined && !plainKey(flagKey)) return false;
    // Node has built request.headers already (it reads `expect` from every HTTP/1.1 request).
    const headers = request.headers;
    if (headers.origin !== undefined || headers['transfer-encoding'] !== undefined || !isJsonType(headers['content-type'])) return false;
    const length = Number(headers['content-length']);
    if (!(length >= 0 && length <= OFREP_BODY_LIMIT)) return false;
    const marks = deps.marks();
    const key = deps.keys.cached(bearerOf(headers), SDK_KEY_TYPES, marks);
    const compiled = key && deps.specs.cached(key, marks);
    if (!compiled) return false;

    counter.served += 1;
    const startedAt = performance.now();
    const reqId = kit.requestId(headers['x-request-id']);
    const route = single ? SINGLE_ROUTE : BULK_ROUTE;
    const answer = (reply: OfrepReply): void => {
      write(response, reqId, reply);
      kit.answered(reqId, 'POST', route, reply.status, startedAt);
    };
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        const text = chunks.length === 1 ? (chunks[0] as Buffer).toString() : Buffer.concat(chunks).toString();
        const ifNoneMatch = headers['if-none-match'];
        const known = flagKey === undefined ? bulkNotModified(compiled, text, ifNoneMatch) : undefined;
        if (known !== undefined) return answer(known);
        let context: unknown;
        try {
          // An empty body is "no body" to the console's JSON parser, which contextOf then refuses.
          context = contextOf(text.trim() === '' ? undefined : parseJsonBody(text));
        } catch (error) {
          return answer(ofrepFailure(error as Error, flagKey));
        }
        answer(flagKey === undefined ? bulkReply(compiled, context, ifNoneMatch, text) : singleReply(compiled, flagKey, context));
      } catch (error) {
        kit.failed(reqId, error);
        if (!response.headersSent) answer(ofrepFailure(error as Error, flagKey));
      }
    });
    return true;
  };
}

const SINGLE_PREFIX = `${BULK_ROUTE}/`;

/** The content types Fastify's JSON parser takes without question. */
function isJsonType(type: string | undefined): boolean {
  return type === 'application/json' || type === 'application/json; charset=utf-8';
}

/** Literal header objects, one shape each: no spread or added property to build per request. */
function write(response: ServerResponse, reqId: string, reply: OfrepReply): void {
  const { status, text, etag } = reply;
  if (text === undefined) {
    if (etag === undefined) response.writeHead(status, { 'x-request-id': reqId, 'x-content-type-options': 'nosniff' });
    else response.writeHead(status, { 'x-request-id': reqId, 'x-content-type-options': 'nosniff', etag });
    response.end();
    return;
  }
  let length = 0;
  if (typeof text === 'string') length = Buffer.byteLength(text);
  else for (const part of text) length += Buffer.byteLength(part);
  if (etag === undefined) response.writeHead(status, { 'x-request-id': reqId, 'x-content-type-options': 'nosniff', 'content-type': JSON_TYPE, 'content-length': length });
  else response.writeHead(status, { 'x-request-id': reqId, 'x-content-type-options': 'nosniff', 'content-type': JSON_TYPE, 'content-length': length, etag });
  if (typeof text === 'string') return void response.end(text);
  // The parts go out in one write to the socket.
  response.cork();
  for (let i = 0; i < text.length - 1; i++) response.write(text[i]);
  response.end(text.at(-1));
  response.uncork();
}
