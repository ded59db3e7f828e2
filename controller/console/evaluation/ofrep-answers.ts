import { createHash } from 'node:crypto';
import { evaluateFlag } from '../../core/eval/flag-keys.js';
import { userFromContext } from '../../core/eval/ofrep-context.js';
import { AuthenticationError, InputError, NotAllowedError } from '../../errors.js';
import type { CompiledScope } from './compiled-specs.js';
import { PartedJoin } from './parted-join.js';

/**
 * OFREP's answers, as status and JSON text, for both paths a request may take: Fastify's routes and
 * the fast lane in front of them. One function per answer, so the two paths answer byte for byte alike.
 */

/** An evaluation context is small; a larger body is refused before it is parsed. */
export const OFREP_BODY_LIMIT = 64 * 1024;

export const SDK_KEY_TYPES = ['SERVER', 'CLIENT'] as const;

/** The route patterns, as Fastify names them in `/metrics`. */
export const SINGLE_ROUTE = '/ofrep/v1/evaluate/flags/*';
export const BULK_ROUTE = '/ofrep/v1/evaluate/flags';

export const JSON_TYPE = 'application/json; charset=utf-8';

export interface OfrepReply {
  status: number;
  /** The JSON body, none for a 304; a bulk answer's in parts, to be sent one after another (bulkParts). */
  text?: string | readonly string[];
  etag?: string;
}

/** The body of a reply as one string. */
export function wholeText(text: string | readonly string[]): string {
  return typeof text === 'string' ? text : text.join('');
}

/**
 * Characters per part of a bulk answer. A string past 128 KB is a large object to V8: pages mapped
 * for it alone, unmapped after, and counted toward the old generation. Built as one string, the
 * answer of 1,000 flags (150 KB) cost more than evaluating them; in parts well below that size each
 * is an ordinary young object.
 */
const BULK_PART_CHARS = 32 * 1024;

const PARSE_ERRORS = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY', 'FST_ERR_CTP_INVALID_MEDIA_TYPE', 'FST_ERR_CTP_BODY_TOO_LARGE', 'FST_ERR_CTP_INVALID_CONTENT_LENGTH', 'FST_ERR_CTP_EMPTY_TYPE', 'FST_ERR_CTP_INVALID_TYPE']);

/** A printable ASCII character: neither whitespace nor beyond (NaN past the end is not either). */
function visible(code: number): boolean {
  return code > 32 && code < 127;
}

/** The SDK key of a request: `Authorization: Bearer <key>`, or OFREP's `X-API-Key`. */
export function bearerOf(headers: { authorization?: string | undefined; 'x-api-key'?: string | string[] | undefined }): string | undefined {
  const header = headers.authorization;
  if (typeof header === 'string') {
    // The common form, without the regular expression: what it would capture.
    if (header.startsWith('Bearer ') && visible(header.charCodeAt(7)) && visible(header.charCodeAt(header.length - 1))) return header.slice(7);
    const m = /^Bearer\s+(.+)$/i.exec(header.trim());
    return m ? m[1] : header.trim();
  }
  const apiKey = headers['x-api-key'];
  return typeof apiKey === 'string' ? apiKey : undefined;
}

/** A failed request in the protocol's shape; `unexpected`: a bug or a failing store, to be logged. */
export function ofrepFailure(error: Error & { code?: string }, flagKey: string | undefined): OfrepReply & { unexpected: boolean } {
  const key = flagKey === undefined ? {} : { key: flagKey };
  const reply = (status: number, body: Record<string, unknown>, unexpected = false) => ({ status, text: JSON.stringify(body), unexpected });
  if (error instanceof AuthenticationError) return reply(401, { errorDetails: error.message });
  if (error instanceof NotAllowedError) return reply(403, { errorDetails: error.message });
  if (error instanceof InputError || (error.code !== undefined && PARSE_ERRORS.has(error.code))) {
    const details = error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? `The request body is larger than ${OFREP_BODY_LIMIT} bytes.` : error.message;
    return reply(400, { ...key, errorCode: 'PARSE_ERROR', errorDetails: details });
  }
  return reply(500, { errorDetails: 'An internal error prevented the evaluation.' }, true);
}

/** The evaluation context of a parsed body (undefined: no body). */
export function contextOf(body: unknown): unknown {
  if (body === undefined || body === null) throw new InputError('The request has no body: send {"context": {...}}.');
  if (typeof body !== 'object' || Array.isArray(body)) throw new InputError('The body must be an object: {"context": {...}}.');
  return (body as Record<string, unknown>)['context'];
}

/** Whether an If-None-Match header names `etag` (weak or strong) or is `*`. */
function matchesTag(ifNoneMatch: string, etag: string): boolean {
  return ifNoneMatch === etag || ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag || t.trim() === '*');
}

/** One flag for one context: its answer, or the protocol's error. */
export function singleReply(compiled: CompiledScope, flagKey: string, context: unknown): OfrepReply {
  const parsed = userFromContext(context);
  if ('problem' in parsed) return { status: 400, text: JSON.stringify({ key: flagKey, errorCode: parsed.problem.code, errorDetails: parsed.problem.message }) };
  const found = compiled.flags.lookup(flagKey);
  if ('error' in found) {
    if (found.error === 'not_found') return { status: 404, text: JSON.stringify({ key: flagKey, errorCode: 'FLAG_NOT_FOUND', errorDetails: found.message }) };
    return { status: 400, text: JSON.stringify({ key: flagKey, errorCode: 'GENERAL', errorDetails: found.message }) };
  }
  const { evaluation, value } = evaluateFlag(compiled.evaluator, found.found, parsed.user, { decidingRuleOnly: true });
  // An answer the engine cannot give is OFREP's GENERAL error (see ofrepAnswer).
  return { status: evaluation.reason === 'unsupported' ? 400 : 200, text: compiled.answerTexts.text(flagKey, found.found, evaluation, value) };
}

/**
 * The 304 of a client polling with the tag it got for this very request body, while the specs
 * are unchanged; undefined when the body must be parsed and evaluated. The same text is the same
 * context, so its answer is the same.
 */
export function bulkNotModified(compiled: CompiledScope, bodyText: string, ifNoneMatch: string | undefined): OfrepReply | undefined {
  if (ifNoneMatch === undefined) return undefined;
  const known = compiled.bulkTagsByBody?.get(bodyText);
  return known !== undefined && matchesTag(ifNoneMatch, known) ? { status: 304, etag: known } : undefined;
}

/** Every flag the key sees for one context, with the answer's ETag (304 when `ifNoneMatch` names it). */
export function bulkReply(compiled: CompiledScope, context: unknown, ifNoneMatch: string | undefined, bodyText?: string): OfrepReply {
  const parsed = userFromContext(context);
  if ('problem' in parsed) return { status: 400, text: JSON.stringify({ errorCode: parsed.problem.code, errorDetails: parsed.problem.message }) };
  const tags = compiled.bulkTags;
  const contextKey = tags === undefined ? undefined : JSON.stringify(parsed.user);
  // A client polling with the tag of its last answer, nothing changed since: 304 without evaluating.
  const known = contextKey === undefined ? undefined : tags?.get(contextKey);
  if (known !== undefined && ifNoneMatch !== undefined && matchesTag(ifNoneMatch, known)) {
    if (bodyText !== undefined) compiled.bulkTagsByBody?.set(bodyText, known);
    return { status: 304, etag: known };
  }
  // One user, one context: each segment and holdout is checked once for all the flags.
  const ctx = { gateMemo: new Map(), decidingRuleOnly: true };
  // The text of JSON.stringify({ flags: answers }), in parts (BULK_PART_CHARS), from each flag's kept answer text.
  const parts = new PartedJoin('{"flags":[', ']}', BULK_PART_CHARS);
  for (const { key, ref } of compiled.flags.all()) {
    const { evaluation, value } = evaluateFlag(compiled.evaluator, ref, parsed.user, ctx);
    parts.add(compiled.answerTexts.text(key, ref, evaluation, value));
  }
  const text = parts.finish();
  // The tag is the answer's own digest: equal answers, equal tags, whatever changed underneath.
  const hash = createHash('sha256');
  for (const part of text) hash.update(part);
  const etag = `"${hash.digest('base64url').slice(0, 27)}"`;
  if (contextKey !== undefined) tags?.set(contextKey, etag);
  if (bodyText !== undefined) compiled.bulkTagsByBody?.set(bodyText, etag);
  return ifNoneMatch !== undefined && matchesTag(ifNoneMatch, etag) ? { status: 304, etag } : { status: 200, text, etag };
}
