import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../permissions.js';
import type { Pagination } from './request-helpers.js';
import { actorOf, checkBodyPresence, checkPathParams, checkQueryParams, pathParamNames, requirePermission } from './request-helpers.js';
import type { RouteCatalog, RouteDoc } from './route-catalog.js';

export interface Envelope {
  message: string;
  data?: unknown;
  pagination?: Pagination;
  /** Overrides the route's success status (e.g. 201 only when something was created). */
  status?: number;
  /** The whole envelope already serialised (a cached list page): sent as it is, instead of the fields above. */
  body?: string;
}

export type RouteHandler = (request: FastifyRequest, actor: Actor) => Envelope | Promise<Envelope>;

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Response bodies of envelopes around deep-frozen data (the entity read cache's responses), by that
 * data: a cached read is answered with the bytes of the last answer instead of serialising the same
 * frozen object again (bench:api). Frozen data never changes, so its body can't go stale; it goes
 * with the data when the cache drops it.
 */
const frozenBodies = new WeakMap<object, { message: string; body: string }>();

/** The body of `{ message, data }` when data is deep-frozen; undefined when it isn't. */
function bodyOf(message: string, data: object): string | undefined {
  const known = frozenBodies.get(data);
  if (known !== undefined && known.message === message) return known.body;
  // Checked only when the data isn't known: isFrozen walks every property of an object.
  if (known === undefined && !Object.isFrozen(data)) return undefined;
  const body = JSON.stringify({ message, data });
  frozenBodies.set(data, { message, body });
  return body;
}

/** Registers a route with Fastify and the catalog the OpenAPI document is built from. */
export function defineRoute(app: FastifyInstance, catalog: RouteCatalog, doc: RouteDoc, handler: RouteHandler): void {
  catalog.add(doc);
  const params = pathParamNames(doc.url);
  const bodyRule = { takesBody: doc.body !== undefined, optional: doc.bodyOptional === true };
  const send = (reply: FastifyReply, { status, ...envelope }: Envelope): void => {
    void reply.status(status ?? doc.successStatus ?? 200);
    if (envelope.body !== undefined) {
      void reply.type(JSON_TYPE).send(envelope.body);
      return;
    }
    const { data } = envelope;
    if (envelope.pagination === undefined && typeof data === 'object' && data !== null) {
      const body = bodyOf(envelope.message, data);
      if (body !== undefined) {
        void reply.type(JSON_TYPE).send(body);
        return;
      }
    }
    void reply.send(envelope);
  };
  app.route({
    method: doc.method,
    url: doc.url,
    ...(doc.bodyRootLevel === undefined ? {} : { config: { bodyRootLevel: doc.bodyRootLevel } }),
    // Not async: Fastify sends what a handler throws as an error reply, and a handler that answers
    // at once (a cached read) then costs no promise. It sends the reply itself and returns nothing
    // (or a promise of nothing), so Fastify doesn't wait on the reply as a thenable.
    handler: (request, reply): Promise<void> | undefined => {
      const actor = actorOf(request);
      requirePermission(actor, doc.permission);
      checkPathParams(request.params, params);
      checkQueryParams(request.query, doc.query ?? [], doc.list === true ? 'list' : 'route', doc.refusedQuery);
      checkBodyPresence(request.body, bodyRule);
      const envelope = handler(request, actor);
      if (envelope instanceof Promise) return envelope.then((answer) => send(reply, answer));
      send(reply, envelope);
      return undefined;
    },
  });
}
