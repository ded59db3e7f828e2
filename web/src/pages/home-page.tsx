import { ErrorBox } from '../components/error-box.js';
import { Link } from '../components/link.js';
import { KINDS } from '../kinds.js';
import { useSession } from '../session-context.js';
import { useAsync } from '../use-async.js';

interface ApplyLock {
  name: string;
  heldBy: string;
  description: string;
  expiresTime: number;
}

/** What is in the console: each kind with its count, and the reviews that need attention. */
export function HomePage() {
  const { api } = useSession();
  const counts = useAsync(
    (signal) =>
      Promise.all([
        ...KINDS.map((k) => api.get<unknown[]>(k.listPath, { query: { limit: 1 }, signal }).then((r) => r.pagination?.totalItems ?? 0)),
        api.get<unknown[]>('reviews', { query: { limit: 1, status: 'pending,approved,pending_webhook_validation,approved_webhook_validation,validation_timed_out' }, signal }).then((r) => r.pagination?.totalItems ?? 0),
      ]),
    [api],
  );
  // Applies running now: each holds the apply lock on its repository and branch.
  const locks = useAsync((signal) => api.get<ApplyLock[]>('apply_locks', { signal }).then((r) => r.data ?? []), [api]);
  const open = counts.data?.[KINDS.length];
  // Loading shows an ellipsis; a failed load a dash, beside the error, not a load that never ends.
  const pending = counts.error === undefined ? '…' : '–';
  return (
    <>
      <h1>Overview</h1>
      <ErrorBox error={counts.error} />
      <ul class="tiles">
        {KINDS.map((k, i) => (
          <li key={k.folder}>
            <Link href={`/entities/${k.folder}`}>
              <span class="tile-count">{counts.data ? counts.data[i] : pending}</span> {k.plural}
            </Link>
          </li>
        ))}
        <li>
          <Link href="/reviews">
            <span class="tile-count">{open ?? pending}</span> Open reviews
          </Link>
        </li>
      </ul>
      <h2>Applies running</h2>
      <ErrorBox error={locks.error} />
      {locks.data && locks.data.length === 0 ? <p class="muted">No flagops apply holds a lock now.</p> : null}
      {locks.data && locks.data.length > 0 ? (
        <ul class="apply-locks">
          {locks.data.map((lock) => (
            <li key={lock.name}>
              <code>{lock.name}</code> locked by {lock.heldBy}
              {lock.description ? ` (${lock.description})` : ''}, until {new Date(lock.expiresTime).toISOString().slice(0, 19).replace('T', ' ')} UTC unless renewed
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
