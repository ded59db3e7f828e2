import type { FastifyInstance } from 'fastify';
import { AuditEntrySchema } from '../../../schemas/audit.js';
import { withoutUrlCredentials } from '../../../schemas/http-url.js';
import type { AuditEntry, JsonObject, Store } from '../../store/ports.js';
import { defineRoute } from '../http/define-route.js';
import { pagination, PAGING_QUERY, parsePaging, queryOf } from '../http/request-helpers.js';
import type { RouteCatalog } from '../http/route-catalog.js';

export function registerAuditRoutes(app: FastifyInstance, catalog: RouteCatalog, store: Store): void {
  const path = '/console/v1/audit_logs';
  defineRoute(
    app,
    catalog,
    {
      method: 'GET',
      url: path,
      summary: 'Audit log, newest first: who changed what, when, from which review',
      tag: 'Audit log',
      permission: 'read',
      list: true,
      response: AuditEntrySchema,
      query: [
        ...PAGING_QUERY,
        { name: 'kind', type: 'string', description: 'Entity kind: gate, dynamic_config, segment, experiment, ...' },
        { name: 'entityID', type: 'string', description: 'Entity id (or name for assignment sources).' },
        { name: 'actor', type: 'string', description: 'E-mail of the user who made the change.' },
      ],
    },
    async (request) => {
      const query = queryOf(request);
      const paging = parsePaging(query);
      const str = (name: string): string | undefined => (typeof query[name] === 'string' && query[name] !== '' ? (query[name] as string) : undefined);
      const page = await store.audit.list({ kind: str('kind'), entityId: str('entityID'), actorEmail: str('actor'), offset: paging.offset, limit: paging.limit });
      return { message: 'Audit log listed successfully.', data: page.items.map(withoutWebhookCredentials), pagination: pagination(path, query, paging, page.total) };
    },
  );
}

/**
 * A settings row as shown: a webhook URL recorded with a user or password (refused now, possible in
 * rows written before) shows them as `***`, whoever reads the log.
 */
function withoutWebhookCredentials(entry: AuditEntry): AuditEntry {
  if (entry.kind !== 'settings' || entry.details === null) return entry;
  const details: JsonObject = { ...entry.details };
  for (const side of ['before', 'after']) {
    const view = details[side];
    if (view === null || typeof view !== 'object' || Array.isArray(view)) continue;
    const url = (view as JsonObject)['webhookURL'];
    if (typeof url === 'string') details[side] = { ...(view as JsonObject), webhookURL: withoutUrlCredentials(url) };
  }
  return { ...entry, details };
}
