import type { AuditEntry } from '../pages/entity-detail-page.js';
import { humanize, showTime } from '../format.js';
import { kindByName } from '../kinds.js';
import { Link } from './link.js';

/** Audit rows: when, who, what, which version, from which review. */
export function AuditTable({ entries, caption, showEntity = false }: { entries: readonly AuditEntry[]; caption: string; showEntity?: boolean }) {
  if (entries.length === 0) return <p class="muted">No changes recorded.</p>;
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={caption}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            {showEntity && <th scope="col">Entity</th>}
            <th scope="col">Version</th>
            <th scope="col">Review</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((a) => {
            const view = kindByName(a.kind);
            return (
              <tr key={a.id}>
                <td>{showTime(a.time)}</td>
                <td>{a.actorEmail}</td>
                <td>
                  {humanize(a.action)}
                  {a.details && Object.keys(a.details).length > 0 && <span class="muted"> {JSON.stringify(a.details)}</span>}
                </td>
                {showEntity && (
                  <td>
                    {view ? <Link href={`/entities/${view.folder}/${encodeURIComponent(a.entityId)}`}>{`${a.kind}/${a.entityId}`}</Link> : `${a.kind}/${a.entityId}`}
                  </td>
                )}
                <td>{a.version ?? '—'}</td>
                <td>{a.reviewId ? <Link href={`/reviews/${encodeURIComponent(a.reviewId)}`}>{a.reviewId}</Link> : '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
