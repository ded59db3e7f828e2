import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Actor } from '../permissions.js';
import type { Pagination } from './request-helpers.js';
import { actorOf, checkBodyPresence, checkPathParams, checkQueryParams, requirePermission } from './request-helpers.js';
import type { RouteCatalog, RouteDoc } from './route-catalog.js';

export interface Envelope {
  message: string;
  data?: unknown;
  pagination?: Pagination;
  /** Overrides the route's success status (e.g. 201 only when something was created). */
  status?: number;
}

export type RouteHandler = (request: FastifyRequest, actor: Actor) => Envelope | Promise<Envelope>;

/** Registers a route with Fastify and the catalog the OpenAPI document is built from. */
export function defineRoute(app: FastifyInstance, catalog: RouteCatalog, doc: RouteDoc, handler: RouteHandler): void {
  catalog.add(doc);
  app.route({
    method: doc.method,
    url: doc.url,
    handler: async (request, reply) => {
      const actor = actorOf(request);
      requirePermission(actor, doc.permission);
      checkPathParams(request.params);
      if (doc.list === true) checkQueryParams(request.query, doc.query ?? []);
      checkBodyPresence(request.body, { takesBody: doc.body !== undefined, optional: doc.bodyOptional === true });
      const { status, ...envelope } = await handler(request, actor);
      return reply.status(status ?? doc.successStatus ?? 200).send(envelope);
    },
  });
}
