import { errorCodes, type FastifyInstance } from 'fastify';
import { describeJsonTreeProblem, jsonTreeProblem, MAX_JSON_DEPTH } from '../../../schemas/json-tree-problem.js';
import { InputError } from '../../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Level of a route's body root as the depth limit counts it, when not 1 (see RouteDoc.bodyRootLevel). */
    bodyRootLevel?: number;
  }
}

/**
 * The body of a JSON request, checked before any of the console's code sees it: nested no deeper
 * than MAX_JSON_DEPTH, its root being level `rootLevel` (JSON text fields counted where their value
 * goes), and without prototype keys. Malformed JSON is Fastify's own error, as before, so every
 * route answers it the same way.
 */
export function parseJsonBody(text: string, rootLevel = 1): unknown {
  // Fastify's parser accepted a byte-order mark; so does this one.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let body: unknown;
  try {
    body = JSON.parse(json);
  } catch {
    throw new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
  }
  const problem = jsonTreeProblem(body, MAX_JSON_DEPTH, rootLevel);
  if (problem !== undefined) {
    const { message, property, errorMessage } = describeJsonTreeProblem(problem);
    throw new InputError(message, [{ property, errorMessage }]);
  }
  return body;
}

/**
 * Replaces Fastify's JSON parser (secure-json-parse) with `parseJsonBody`, which names the property
 * it refuses. Lifecycle actions (PUT .../enable) carry no body, and many clients still send a JSON
 * content type: an empty body is "no body", not malformed JSON.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, parseJsonBody(text, request.routeOptions.config?.bodyRootLevel));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
