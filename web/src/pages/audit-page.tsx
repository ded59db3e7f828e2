import { useEffect, useRef, useState } from 'preact/hooks';
import { AuditTable } from '../components/audit-table.js';
import { ErrorBox } from '../components/error-box.js';
import { pageFrom, Pager } from '../components/pager.js';
import { navigate } from '../router.js';
import { useSession } from '../session-context.js';
import { useAsync } from '../use-async.js';
import type { AuditEntry } from './entity-detail-page.js';

const PAGE_SIZE = 50;

/** The whole audit log, newest first, filtered by who made the change. */
export function AuditPage({ query }: { query: URLSearchParams }) {
  const { api } = useSession();
  const actor = query.get('actor') ?? '';
  const page = pageFrom(query);
  const [actorInput, setActorInput] = useState(actor);
  // The box shows the filter of the URL when it changes under it (Back, the menu's link); only then,
  // so that what is typed before the first render's effects run is kept.
  const shown = useRef(actor);
  useEffect(() => {
    if (shown.current === actor) return;
    shown.current = actor;
    setActorInput(actor);
  }, [actor]);
  const log = useAsync((signal) => api.get<AuditEntry[]>('audit_logs', { query: { actor, page, limit: PAGE_SIZE }, signal }), [api, actor, page]);
  const go = (next: { actor?: string; page?: number }): void => {
    const params = new URLSearchParams();
    const a = next.actor ?? actor;
    if (a) params.set('actor', a);
    if ((next.page ?? 1) > 1) params.set('page', String(next.page));
    navigate(`/audit${params.toString() ? `?${params.toString()}` : ''}`);
  };
  return (
    <>
      <h1>Audit log</h1>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          go({ actor: actorInput.trim(), page: 1 });
        }}
      >
        <div class="field">
          <label for="audit-actor">Changed by (e-mail)</label>
          <input id="audit-actor" type="text" value={actorInput} onInput={(e) => setActorInput((e.currentTarget as HTMLInputElement).value)} />
        </div>
        <button type="submit">Filter</button>
      </form>
      <ErrorBox error={log.error} />
      {log.data && (
        <>
          {(log.data.data.length > 0 || (log.data.pagination?.totalItems ?? 0) === 0) && <AuditTable entries={log.data.data} caption="Audit log" showEntity />}
          <Pager page={log.data.pagination?.pageNumber ?? page} pageSize={PAGE_SIZE} total={log.data.pagination?.totalItems ?? 0} label="Audit log" onPage={(p) => go({ page: p })} />
        </>
      )}
    </>
  );
}
