import type { FastifyInstance } from 'fastify';
import { InputError } from '../../errors.js';
import type { EntityService } from '../entity-service.js';
import { defineRoute } from '../http/define-route.js';
import { pagination, PAGING_QUERY, parseBooleanFlag, parseIfMatch, parsePaging, queryOf, stringParam } from '../http/request-helpers.js';
import type { QueryParam, RouteCatalog } from '../http/route-catalog.js';

const IF_MATCH = [{ name: 'If-Match', description: 'Expected current version, e.g. "3"; a mismatch is a 409.' }];

function splitDryRun(body: unknown): { body: unknown; dryRun: boolean } {
  if (body && typeof body === 'object' && !Array.isArray(body) && 'dryRun' in body) {
    const { dryRun, ...rest } = body as Record<string, unknown>;
    return { body: rest, dryRun: parseBooleanFlag(dryRun, 'dryRun') };
  }
  return { body, dryRun: false };
}

/** CRUD, lifecycle actions and versions for one entity kind, with the same conventions for every kind. */
export function registerEntityRoutes(app: FastifyInstance, catalog: RouteCatalog, service: EntityService): void {
  const { def } = service;
  const base = `/console/v1/${def.path}`;
  const item = `/console/v1/${def.itemPath ?? def.path}/:${def.idField}`;
  const dryRunQuery: QueryParam[] = def.dryRun === 'query' ? [{ name: 'dryRun', type: 'boolean', description: 'Validate only; persist nothing.' }] : [];
  const filterQuery: QueryParam[] = Object.keys(def.filters ?? {}).map((name) => ({ name, type: 'string', description: `Filter by ${name}.` }));
  const name = def.label.toLowerCase();
  const options = (request: Parameters<Parameters<typeof defineRoute>[3]>[0], rawBody: unknown) => {
    const fromBody = def.dryRun === 'body' ? splitDryRun(rawBody) : { body: rawBody, dryRun: false };
    const asked = queryOf(request)['dryRun'];
    // A client asking for a dry run where there is none must not get a real write instead.
    if (asked !== undefined && def.dryRun !== 'query') {
      throw new InputError(`${def.label}s have no dry run${def.dryRun === 'body' ? ' in the query; send "dryRun": true in the body' : ''}.`, [{ property: 'dryRun', errorMessage: 'is not supported here' }]);
    }
    const dryRun = fromBody.dryRun || (def.dryRun === 'query' && parseBooleanFlag(asked, 'dryRun'));
    return { body: fromBody.body, dryRun, expectedVersion: parseIfMatch(request.headers['if-match']) };
  };
  const id = (request: Parameters<typeof stringParam>[0]) => stringParam(request, def.idField);

  defineRoute(app, catalog, { method: 'GET', url: base, summary: `List ${name}s`, tag: def.tag, permission: 'read', list: true, response: def.schemas.response, query: [...PAGING_QUERY, ...filterQuery] }, async (request) => {
    const query = queryOf(request);
    const paging = parsePaging(query);
    const filters = Object.fromEntries(Object.entries(query).filter(([k, v]) => k !== 'page' && k !== 'limit' && typeof v === 'string')) as Record<string, string>;
    const page = await service.list(paging.offset, paging.limit, filters);
    return { message: `${def.label}s listed successfully.`, data: page.items, pagination: pagination(base, query, paging, page.total) };
  });

  const dryRunSuccess = def.dryRun === undefined ? [] : [{ status: 200, description: 'Dry run: every check passed; the would-be entity, nothing persisted.' }];
  defineRoute(app, catalog, { method: 'POST', url: base, summary: `Create a ${name}`, tag: def.tag, permission: 'write', body: def.schemas.create, response: def.schemas.response, successStatus: 201, otherSuccess: dryRunSuccess, query: dryRunQuery }, async (request, actor) => {
    const { body, dryRun } = options(request, request.body);
    const result = await service.execute({ type: 'create', body }, actor, { dryRun });
    return dryRun
      ? { status: 200, message: `${def.label} is valid (dry run, nothing persisted).`, data: result.entity }
      : { message: `${def.label} created successfully.`, data: result.entity };
  });

  defineRoute(app, catalog, { method: 'GET', url: item, summary: `Read a ${name}`, tag: def.tag, permission: 'read', response: def.schemas.response }, async (request) => ({
    message: `${def.label} read successfully.`,
    data: await service.get(id(request)),
  }));

  const writeRoute = (type: 'update' | 'patch', method: 'POST' | 'PATCH', schema: typeof def.schemas.update) => {
    if (!schema) return;
    const summary = type === 'update' ? `Fully update a ${name}` : `Partially update a ${name}`;
    defineRoute(app, catalog, { method, url: item, summary, tag: def.tag, permission: 'write', body: schema, response: def.schemas.response, query: dryRunQuery, headers: IF_MATCH }, async (request, actor) => {
      const { body, dryRun, expectedVersion } = options(request, request.body);
      const result = await service.execute({ type, id: id(request), body }, actor, { dryRun, expectedVersion });
      const message = dryRun ? `${def.label} is valid (dry run, nothing persisted).` : result.changed ? `${def.label} updated successfully.` : `${def.label} unchanged.`;
      return { message, data: result.entity };
    });
  };
  writeRoute('update', 'POST', def.schemas.update);
  writeRoute('patch', 'PATCH', def.schemas.patch);

  if (def.deletable) {
    defineRoute(app, catalog, { method: 'DELETE', url: item, summary: `Delete a ${name}`, tag: def.tag, permission: 'write', headers: IF_MATCH }, async (request, actor) => {
      await service.execute({ type: 'delete', id: id(request) }, actor, { expectedVersion: parseIfMatch(request.headers['if-match']) });
      return { message: `${def.label} deleted successfully.` };
    });
  }

  for (const [action, spec] of Object.entries(def.actions ?? {})) {
    const url = `${item}/${spec.path ?? action}`;
    const paramNames = [...(spec.path ?? '').matchAll(/:(\w+)/g)].map((m) => m[1] ?? '');
    const response = spec.respond === undefined ? def.schemas.response : spec.respond === null ? undefined : spec.respond.schema;
    const summary = spec.summary ?? `${action.replace(/_/g, ' ')} a ${name}`;
    defineRoute(
      app,
      catalog,
      { method: spec.method ?? 'PUT', url, summary, tag: def.tag, permission: 'write', body: spec.body, bodyOptional: spec.body === undefined || spec.bodyOptional === true, response, headers: IF_MATCH },
      async (request, actor) => {
        const params = Object.fromEntries(paramNames.map((p) => [p, stringParam(request, p)]));
        const result = await service.execute({ type: 'action', id: id(request), action, body: request.body, params }, actor, { expectedVersion: parseIfMatch(request.headers['if-match']) });
        const message = spec.message ?? (result.changed ? `${def.label} ${spec.done} successfully.` : `${def.label} was already ${spec.done}.`);
        if (spec.respond === null) return { message };
        return { message, data: spec.respond === undefined || result.entity === undefined ? result.entity : spec.respond.view(result.entity) };
      },
    );
  }

  for (const view of Object.values(def.views ?? {})) {
    const url = `${item}/${view.path}`;
    defineRoute(app, catalog, { method: 'GET', url, summary: view.summary, tag: def.tag, permission: 'read', response: view.schema, list: view.list, query: view.list ? PAGING_QUERY : [] }, async (request) => {
      const entityId = id(request);
      const data = view.read(await service.get(entityId));
      if (!view.list) return { message: view.message, data };
      const query = queryOf(request);
      const paging = parsePaging(query);
      const items = Array.isArray(data) ? data : [];
      const path = `/console/v1/${def.itemPath ?? def.path}/${encodeURIComponent(entityId)}/${view.path}`;
      return { message: view.message, data: items.slice(paging.offset, paging.offset + paging.limit), pagination: pagination(path, query, paging, items.length) };
    });
  }

  defineRoute(app, catalog, { method: 'GET', url: `${item}/versions`, summary: `List versions of a ${name}, newest first`, tag: def.tag, permission: 'read', list: true, response: def.schemas.response, query: PAGING_QUERY }, async (request) => {
    const query = queryOf(request);
    const paging = parsePaging(query);
    const entityId = id(request);
    const page = await service.versions(entityId, paging.offset, paging.limit);
    const path = `/console/v1/${def.itemPath ?? def.path}/${encodeURIComponent(entityId)}/versions`;
    return { message: `${def.label} versions listed successfully.`, data: page.items, pagination: pagination(path, query, paging, page.total) };
  });
}
