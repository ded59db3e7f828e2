import type { z } from 'zod';
import type { AuditEntrySchema } from '../../../schemas/audit.js';
import { ownedPathsInTags } from '../../../schemas/repo-config.js';
import type { Review } from '../../../schemas/review.js';
import { ApiError, type Api, type Json } from '../api.js';
import { AuditTable } from '../components/audit-table.js';
import { ErrorBox } from '../components/error-box.js';
import { Link } from '../components/link.js';
import { ReviewList } from '../components/review-list.js';
import { RuleSummary } from '../components/rule-summary.js';
import { TryItPanel } from '../components/try-it-panel.js';
import { VersionHistory } from '../components/version-history.js';
import { toYaml } from '../format.js';
import { MANAGED_TAG, type KindView } from '../kinds.js';
import { useSession } from '../session-context.js';
import { useAsync } from '../use-async.js';

export type AuditEntry = z.infer<typeof AuditEntrySchema>;

/** The kinds an application evaluates (the others feed them): these pages get "Try it". */
const EVALUABLE = new Set(['gate', 'dynamic_config', 'experiment', 'layer']);

/** `flagops apply` records the git commit it applied in each review's description. */
const APPLY_COMMIT = /^flagops apply: .*\bcommit ([0-9a-f]{7,64})\b/;

interface LastApply {
  commit: string;
  reviewId: string;
}

/** The commit of the newest change that `flagops apply` committed through a review, from the audit trail. */
async function lastApply(api: Api, audit: readonly AuditEntry[], signal: AbortSignal): Promise<LastApply | undefined> {
  const reviewIds = [...new Set(audit.map((a) => a.reviewId).filter((id): id is string => id !== null))].slice(0, 10);
  for (const reviewId of reviewIds) {
    const review = await api.get<Review>(`reviews/${encodeURIComponent(reviewId)}`, { signal });
    const commit = APPLY_COMMIT.exec(review.data.description)?.[1];
    if (commit) return { commit, reviewId };
  }
  return undefined;
}

/** Says that a list shows only its newest items, when the server holds more than it sent. */
function NewestListed({ shown, total, what }: { shown: number; total: number | undefined; what: string }) {
  if (total === undefined || total <= shown) return null;
  return (
    <p class="muted">
      {total} {what}; the newest {shown} are listed.
    </p>
  );
}

export function EntityDetailPage({ view, id }: { view: KindView; id: string }) {
  const { api, can } = useSession();
  const item = `${view.itemPath}/${encodeURIComponent(id)}`;
  const entity = useAsync((signal) => api.get<Json>(item, { signal }).then((r) => r.data), [api, item]);
  const auditPage = useAsync((signal) => api.get<AuditEntry[]>('audit_logs', { query: { kind: view.kind, entityID: id, limit: 100 }, signal }), [api, view.kind, id]);
  const audit = { data: auditPage.data?.data, error: auditPage.error };
  const tags = Array.isArray(entity.data?.['tags']) ? (entity.data['tags'] as unknown[]) : [];
  const managed = tags.includes(MANAGED_TAG);
  // flagops apply names the fields the console owns (flagops.yaml's ownership.console) in the entity's tags.
  const consoleOwns = managed ? ownedPathsInTags(tags) : [];
  const apply = useAsync((signal) => (managed && audit.data ? lastApply(api, audit.data, signal) : Promise.resolve(undefined)), [api, managed, audit.data]);
  const reviewPage = useAsync(
    (signal) => (view.reviewable ? api.get<Review[]>(`${view.listPath}/${encodeURIComponent(id)}/reviews`, { query: { limit: 20 }, signal }) : Promise.resolve(undefined)),
    [api, view.listPath, id],
  );
  const reviews = { data: reviewPage.data?.data, error: reviewPage.error };

  if (entity.error instanceof ApiError && entity.error.status === 404) {
    return (
      <>
        <h1>
          {view.label}: {id}
        </h1>
        <ErrorBox error={entity.error} />
      </>
    );
  }
  return (
    <>
      <p class="crumbs">
        <Link href={`/entities/${view.folder}`}>{view.plural}</Link> / {id}
      </p>
      <h1>
        {view.label}: {id}
      </h1>
      <ErrorBox error={entity.error} />
      {entity.data && (
        <>
          <div class="badges">
            {typeof entity.data['status'] === 'string' && <span class="badge">{entity.data['status']}</span>}
            {typeof entity.data['isEnabled'] === 'boolean' && entity.data['status'] !== (entity.data['isEnabled'] ? 'Enabled' : 'Disabled') && (
              <span class="badge">{entity.data['isEnabled'] ? 'Enabled' : 'Disabled'}</span>
            )}
            {typeof entity.data['version'] === 'number' && <span class="badge">version {entity.data['version']}</span>}
            {managed && (
              <span class="badge managed" data-testid="managed-badge">
                Managed by git{consoleOwns.length > 0 && <> · the console owns {consoleOwns.join(', ')}</>}
              </span>
            )}
            {apply.data && (
              <span class="muted" data-testid="last-apply">
                last applied from commit <code>{apply.data.commit.slice(0, 12)}</code> (<Link href={`/reviews/${encodeURIComponent(apply.data.reviewId)}`}>review</Link>)
              </span>
            )}
          </div>
          {managed && consoleOwns.length === 0 && <p class="note">This {view.label.toLowerCase()} is declared in the config repository. A change made here that is not in git is rejected by the pre-commit validation.</p>}
          {consoleOwns.length > 0 && (
            <p class="note" data-testid="console-owns-note">
              This {view.label.toLowerCase()} is declared in the config repository, but the console owns {consoleOwns.join(', ')}: a change made here limited to
              {consoleOwns.length === 1 ? ' that field' : ' those fields'} is approved by the pre-commit validation and kept by flagops apply; a change of any other field that is not in git is rejected.
            </p>
          )}
          {view.editable && can('submit_reviews') && (
            <p>
              <Link class="button" href={`/entities/${view.folder}/${encodeURIComponent(id)}/edit`}>
                Edit and submit for review
              </Link>
            </p>
          )}
          <RuleSummary api={api} kind={view.kind} entity={entity.data} />
          {EVALUABLE.has(view.kind) && <TryItPanel api={api} flag={`${view.folder}/${id}`} />}
          <section aria-labelledby="config-heading">
            <h2 id="config-heading">Current config</h2>
            <pre class="yaml" tabIndex={0} aria-label="Current config as YAML">
              {toYaml(entity.data)}
            </pre>
          </section>
        </>
      )}
      <VersionHistory api={api} path={`${item}/versions`} />
      {view.reviewable && (
        <section aria-labelledby="reviews-heading">
          <h2 id="reviews-heading">Reviews</h2>
          <ErrorBox error={reviews.error} />
          {reviews.data && <ReviewList reviews={reviews.data} empty="No reviews of this entity." />}
          <NewestListed shown={reviews.data?.length ?? 0} total={reviewPage.data?.pagination?.totalItems} what="reviews" />
        </section>
      )}
      <section aria-labelledby="audit-heading">
        <h2 id="audit-heading">Audit trail</h2>
        <ErrorBox error={audit.error} />
        {audit.data && <AuditTable entries={audit.data} caption={`Audit trail of ${id}`} />}
        <NewestListed shown={audit.data?.length ?? 0} total={auditPage.data?.pagination?.totalItems} what="changes" />
      </section>
    </>
  );
}
