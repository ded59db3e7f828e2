import type { FastifyInstance } from 'fastify';
import { KeyCreateSchema, KeySchema, KeyUpdateSchema, WhoAmISchema } from '../../../schemas/key.js';
import { RoleCreateSchema, RoleSchema, RoleUpdateSchema } from '../../../schemas/role.js';
import { parseWith } from '../../core/zod-errors.js';
import { InputError } from '../../errors.js';
import type { AuthService } from '../auth-service.js';
import type { Store } from '../../store/ports.js';
import { defineRoute } from '../http/define-route.js';
import { pagination, PAGING_QUERY, parsePaging, queryOf, stringParam, type Pagination } from '../http/request-helpers.js';
import type { RouteCatalog } from '../http/route-catalog.js';

function parseBody<T>(schema: Parameters<typeof parseWith<T>>[0], body: unknown): T {
  const parsed = parseWith(schema, body ?? {});
  if (!parsed.ok) throw new InputError('Invalid request body.', parsed.errors);
  return parsed.value;
}

/** One page of a list held in memory (keys and roles are few), in the API's list envelope. */
function paged<T>(path: string, query: Record<string, unknown>, items: readonly T[]): { data: T[]; pagination: Pagination } {
  const paging = parsePaging(query);
  return { data: items.slice(paging.offset, paging.offset + paging.limit), pagination: pagination(path, query, paging, items.length) };
}

/** Keys and roles: admin only (manage_keys, manage_roles). */
export function registerKeyRoutes(app: FastifyInstance, catalog: RouteCatalog, auth: AuthService, store: Store): void {
  const tag = 'Keys and roles';
  defineRoute(app, catalog, { method: 'GET', url: '/console/v1/whoami', summary: 'The user, role and permissions of the calling key', tag, permission: 'read', response: WhoAmISchema }, async (_request, actor) => ({
    message: 'Caller identified.',
    data: {
      userEmail: actor.userEmail,
      keyID: actor.keyId,
      role: actor.role,
      permissions: [...actor.permissions].sort(),
      environments: [...(actor.environments ?? [])],
      targetApps: [...(actor.targetApps ?? [])],
    },
  }));
  defineRoute(app, catalog, { method: 'GET', url: '/console/v1/keys', summary: 'List API keys (console and SDK keys)', tag, permission: 'manage_keys', list: true, response: KeySchema, query: PAGING_QUERY }, async (request) => ({
    message: 'Keys listed successfully.',
    ...paged('/console/v1/keys', queryOf(request), await auth.listKeys()),
  }));
  defineRoute(app, catalog, { method: 'POST', url: '/console/v1/keys', summary: 'Create a console or SDK key (the secret is shown only in this response)', tag, permission: 'manage_keys', body: KeyCreateSchema, response: KeySchema, successStatus: 201 }, async (request, actor) => {
    const { key, secret } = await auth.createKey(parseBody(KeyCreateSchema, request.body), actor);
    return { message: 'Key created successfully. Store the secret now: it is not shown again.', data: { ...key, key: secret } };
  });
  defineRoute(app, catalog, { method: 'GET', url: '/console/v1/keys/:id', summary: 'Read an API key', tag, permission: 'manage_keys', response: KeySchema }, async (request) => ({
    message: 'Key read successfully.',
    data: await auth.getKey(stringParam(request, 'id')),
  }));
  defineRoute(app, catalog, { method: 'PATCH', url: '/console/v1/keys/:id', summary: "Update a key's description, scopes, environments, target apps or its user's role", tag, permission: 'manage_keys', body: KeyUpdateSchema, response: KeySchema }, async (request, actor) => ({
    message: 'Key updated successfully.',
    data: (await auth.updateKey(stringParam(request, 'id'), parseBody(KeyUpdateSchema, request.body), actor)).after,
  }));
  defineRoute(app, catalog, { method: 'PATCH', url: '/console/v1/keys/:id/rotate', summary: 'Rotate a key (the new secret is shown only in this response)', tag, permission: 'manage_keys', bodyOptional: true, response: KeySchema }, async (request, actor) => {
    const { key, secret } = await auth.rotateKey(stringParam(request, 'id'), actor);
    return { message: 'Key rotated successfully. Store the new secret now: it is not shown again.', data: { ...key, key: secret } };
  });
  defineRoute(app, catalog, { method: 'PATCH', url: '/console/v1/keys/:id/deactivate', summary: 'Deactivate a key', tag, permission: 'manage_keys', bodyOptional: true, response: KeySchema }, async (request, actor) => ({
    message: 'Key deactivated successfully.',
    data: await auth.deactivateKey(stringParam(request, 'id'), actor),
  }));
  defineRoute(app, catalog, { method: 'DELETE', url: '/console/v1/keys/:id', summary: 'Delete a key', tag, permission: 'manage_keys' }, async (request, actor) => {
    await auth.deleteKey(stringParam(request, 'id'), actor);
    return { message: 'Key deleted successfully.' };
  });

  defineRoute(app, catalog, { method: 'GET', url: '/console/v1/roles', summary: 'List roles and their permissions', tag, permission: 'manage_roles', list: true, response: RoleSchema, query: PAGING_QUERY }, async (request) => ({
    message: 'Roles listed successfully.',
    ...paged('/console/v1/roles', queryOf(request), await store.roles.list()),
  }));
  defineRoute(app, catalog, { method: 'POST', url: '/console/v1/roles', summary: 'Create a custom role', tag, permission: 'manage_roles', body: RoleCreateSchema, response: RoleSchema, successStatus: 201 }, async (request, actor) => {
    const body = parseBody(RoleCreateSchema, request.body);
    return { message: 'Role created successfully.', data: await auth.createRole(body.name, body.permissions, actor) };
  });
  defineRoute(app, catalog, { method: 'GET', url: '/console/v1/roles/:name', summary: 'Read a role and its permissions', tag, permission: 'manage_roles', response: RoleSchema }, async (request) => ({
    message: 'Role read successfully.',
    data: await auth.getRole(stringParam(request, 'name')),
  }));
  defineRoute(app, catalog, { method: 'DELETE', url: '/console/v1/roles/:name', summary: 'Delete a custom role that no user holds', tag, permission: 'manage_roles' }, async (request, actor) => {
    await auth.deleteRole(stringParam(request, 'name'), actor);
    return { message: 'Role deleted successfully.' };
  });
  defineRoute(app, catalog, { method: 'PATCH', url: '/console/v1/roles/:name', summary: "Replace a custom role's permissions (built-in roles stay as they are)", tag, permission: 'manage_roles', body: RoleUpdateSchema, response: RoleSchema }, async (request, actor) => {
    const body = parseBody(RoleUpdateSchema, request.body);
    return { message: 'Role updated successfully.', data: (await auth.updateRole(stringParam(request, 'name'), body.permissions, actor)).after };
  });
}
