import type { FastifyInstance } from 'fastify';
import { ApplyLockNameSchema, ApplyLockReleaseSchema, ApplyLockRequestSchema, ApplyLockSchema } from '../../../schemas/apply-lock.js';
import { parseWith } from '../../core/zod-errors.js';
import { InputError } from '../../errors.js';
import type { ApplyLockService } from '../apply-lock-service.js';
import { defineRoute } from '../http/define-route.js';
import { pagination, PAGING_QUERY, parsePaging, queryOf, stringParam } from '../http/request-helpers.js';
import type { RouteCatalog } from '../http/route-catalog.js';

function parsed<T>(schema: Parameters<typeof parseWith<T>>[0], value: unknown, message: string, property?: string): T {
  const result = parseWith(schema, value);
  if (!result.ok) throw new InputError(message, property === undefined ? result.errors : result.errors.map((e) => ({ ...e, property })));
  return result.value;
}

/**
 * Apply locks: `flagops apply` takes one for its repository and branch (PUT, renewed while it runs),
 * releases it at the end (DELETE); `flagops status` and the web console list them.
 */
export function registerApplyLockRoutes(app: FastifyInstance, catalog: RouteCatalog, locks: ApplyLockService): void {
  const tag = 'Apply locks';
  const nameOf = (request: Parameters<typeof stringParam>[0]): string => parsed(ApplyLockNameSchema, stringParam(request, 'name'), 'Invalid lock name.', 'name');
  defineRoute(app, catalog, { method: 'GET', url: '/console/v1/apply_locks', summary: 'List the apply locks held now', tag, permission: 'read', list: true, response: ApplyLockSchema, query: PAGING_QUERY }, async (request) => {
    const query = queryOf(request);
    const paging = parsePaging(query);
    const all = await locks.list();
    return { message: 'Apply locks listed successfully.', data: all.slice(paging.offset, paging.offset + paging.limit), pagination: pagination('/console/v1/apply_locks', query, paging, all.length) };
  });
  defineRoute(
    app,
    catalog,
    { method: 'PUT', url: '/console/v1/apply_locks/:name', summary: 'Take or renew the apply lock on a repository and branch (409 naming the holder when another holds it)', tag, permission: 'submit_reviews', body: ApplyLockRequestSchema, response: ApplyLockSchema },
    async (request, actor) => {
      const name = nameOf(request);
      const body = parsed(ApplyLockRequestSchema, request.body ?? {}, 'Invalid request body.');
      return { message: 'Apply lock held.', data: await locks.acquire(name, body.holder, actor, body.description, body.ttlSeconds * 1000) };
    },
  );
  defineRoute(
    app,
    catalog,
    { method: 'DELETE', url: '/console/v1/apply_locks/:name', summary: 'Release an apply lock the caller holds (nothing happens when it does not hold it)', tag, permission: 'submit_reviews', body: ApplyLockReleaseSchema },
    async (request, actor) => {
      const name = nameOf(request);
      const body = parsed(ApplyLockReleaseSchema, request.body ?? {}, 'Invalid request body.');
      await locks.release(name, body.holder, actor);
      return { message: 'Apply lock released.' };
    },
  );
}
