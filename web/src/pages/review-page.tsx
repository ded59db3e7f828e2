import { useEffect, useState } from 'preact/hooks';
import type { Review } from '../../../schemas/review.js';
import type { Envelope } from '../api.js';
import { ErrorBox } from '../components/error-box.js';
import { contentChanges } from '../content-diff.js';
import { FieldDiff } from '../components/field-diff.js';
import { Link } from '../components/link.js';
import { ReviewActions } from '../components/review-actions.js';
import { ValidationBanner } from '../components/validation-banner.js';
import { humanize, showTime } from '../format.js';
import { kindByName } from '../kinds.js';
import { useSession } from '../session-context.js';

/** Statuses that can still change; the page long-polls while a review is in one of them. */
const LIVE = ['pending', 'approved', 'pending_webhook_validation', 'approved_webhook_validation', 'validation_timed_out'];

/**
 * While validation runs the receiver may replace its message without changing the status, and a
 * held read answers only on a status change: so those reads are held briefly and repeated.
 */
const VALIDATION_WAIT_MS = 1500;
const OTHER_WAIT_MS = 20_000;

function Person({ label, who, when }: { label: string; who: string | null | undefined; when?: number | null }) {
  if (!who) return null;
  return (
    <>
      <dt>{label}</dt>
      <dd>
        {who}
        {when ? `, ${showTime(when)}` : ''}
      </dd>
    </>
  );
}

export function ReviewPage({ reviewId }: { reviewId: string }) {
  const { api } = useSession();
  const [review, setReview] = useState<Review | undefined>();
  const [error, setError] = useState<unknown>();
  const [pollError, setPollError] = useState<unknown>();
  const path = `reviews/${encodeURIComponent(reviewId)}`;

  useEffect(() => {
    const controller = new AbortController();
    api.get<Review>(path, { signal: controller.signal }).then(
      (r) => setReview(r.data),
      (e: unknown) => !controller.signal.aborted && setError(e),
    );
    return () => controller.abort();
  }, [api, path]);

  // The long poll: hold a read while the status stays the same, show each answer.
  const status = review?.status;
  useEffect(() => {
    if (!status || !LIVE.includes(status)) return;
    const controller = new AbortController();
    const waitMs = status === 'pending_webhook_validation' ? VALIDATION_WAIT_MS : OTHER_WAIT_MS;
    void (async () => {
      while (!controller.signal.aborted) {
        try {
          const r: Envelope<Review> = await api.get<Review>(path, { query: { waitWhile: status, waitMs }, signal: controller.signal });
          setPollError(undefined);
          setReview(r.data);
          if (r.data.status !== status) return;
        } catch (e) {
          if (controller.signal.aborted) return;
          setPollError(e);
          await new Promise((resolve) => setTimeout(resolve, 3000));
        }
      }
    })();
    return () => controller.abort();
  }, [api, path, status]);

  if (error) return <ErrorBox error={error} title="Could not read the review" />;
  if (!review) return <p aria-busy="true">Loading…</p>;
  const view = kindByName(review.configType);
  const changes = contentChanges(review.oldConfig ?? {}, review.newConfig ?? {});
  const entityHref = view ? `/entities/${view.folder}/${encodeURIComponent(review.configName)}` : undefined;
  return (
    <>
      <p class="crumbs">
        <Link href="/reviews">Reviews</Link> / {review.reviewID}
      </p>
      <h1>
        Review of {view ? view.label.toLowerCase() : humanize(review.configType)} {entityHref ? <Link href={entityHref}>{review.configName}</Link> : review.configName}
      </h1>
      <div class="badges">
        <span class={`badge status-${review.status}`} data-testid="review-status">
          {humanize(review.status)}
        </span>
        <span class="badge">{review.action}</span>
        {review.changeTypes.map((t) => (
          <span key={t} class="badge" title={t === review.type ? 'Sent as the webhook change type' : undefined}>
            change type: {t}
          </span>
        ))}
        {review.bypassedValidation && <span class="badge bad">validation bypassed</span>}
      </div>
      {review.isStale && review.status !== 'stale' && (
        <p class="error" role="note">
          The {humanize(review.configType)} changed since this review was made: a commit would be refused.
        </p>
      )}
      <ValidationBanner review={review} />
      <ErrorBox error={pollError} title="Live updates paused" />
      {review.description && <p class="description">{review.description}</p>}
      <dl class="people">
        <Person label="Submitter" who={review.submitter} when={review.createdTime} />
        <Person label="Approver" who={review.approvedBy} when={review.approvedTime} />
        <Person label="Rejected by" who={review.rejectedBy} when={review.rejectedTime} />
        <Person label="Committer" who={review.committer ?? review.validation?.committer} when={review.committedTime} />
        <Person label="Canceled by" who={review.canceledBy} when={review.canceledTime} />
        {review.comment && (
          <>
            <dt>Comment</dt>
            <dd>{review.comment}</dd>
          </>
        )}
        <dt>Against version</dt>
        <dd>{review.baseVersion ?? '— (create)'}</dd>
        {review.committedVersion !== null && (
          <>
            <dt>Committed as version</dt>
            <dd>{review.committedVersion}</dd>
          </>
        )}
      </dl>
      {view && <ReviewActions review={review} view={view} onChange={setReview} />}
      <section aria-labelledby="changes-heading">
        <h2 id="changes-heading">Changes</h2>
        <FieldDiff changes={changes} caption={`Changes to ${review.configName}, old → new`} />
      </section>
    </>
  );
}
