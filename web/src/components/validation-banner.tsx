import type { Review } from '../../../schemas/review.js';
import { showTime } from '../format.js';

/** What a review's pre-commit validation says: the title, where it stands, the headline of an outcome. */
function headline(review: Review): string {
  const v = review.validation;
  if (review.status === 'pending_webhook_validation') return v?.title ?? 'Pending validation';
  if (review.status === 'approved_webhook_validation') return 'The pre-commit validation approved this change; commit it to apply it.';
  if (review.status === 'failed_webhook_validation') return 'The pre-commit validation rejected this change; it is blocked.';
  if (review.status === 'validation_timed_out') return 'The pre-commit validation timed out; commit again to retry.';
  if (review.status === 'committed') return v?.validated ? 'Validated and committed.' : 'Committed.';
  return 'Pre-commit validation';
}

/**
 * The pending-validation banner (docs/design.md, "The reviews protocol"): title, the company-level initial message and the
 * review-specific message, with the receiver's debug links. It is a live region, so screen readers
 * hear the receiver's progress messages as the long poll brings them.
 */
export function ValidationBanner({ review }: { review: Review }) {
  const v = review.validation;
  if (!v) return null;
  const tone = review.status === 'failed_webhook_validation' || review.status === 'validation_timed_out' ? 'bad' : review.status === 'pending_webhook_validation' ? 'pending' : 'good';
  return (
    <section class={`banner ${tone}`} role="status" aria-live="polite" aria-labelledby="validation-title" data-testid="validation-banner">
      <h2 id="validation-title">{headline(review)}</h2>
      <dl>
        {v.initialMessage && (
          <>
            <dt>Company message</dt>
            <dd data-testid="validation-initial-message">{v.initialMessage}</dd>
          </>
        )}
        {v.message && (
          <>
            <dt>Review message</dt>
            <dd data-testid="validation-message">{v.message}</dd>
          </>
        )}
        <dt>Committed by</dt>
        <dd>
          {v.committer}, {showTime(v.startedTime)}
        </dd>
        {review.status === 'pending_webhook_validation' && (
          <>
            <dt>Delivery</dt>
            <dd>
              {v.deliveredTime ? `delivered ${showTime(v.deliveredTime)}` : `${v.attempts} attempt${v.attempts === 1 ? '' : 's'}${v.lastError ? `; last error: ${v.lastError}` : ''}`}; times out {showTime(v.deadline)}
            </dd>
          </>
        )}
      </dl>
      {v.debugLinks.length > 0 && (
        <ul class="links" aria-label="Debug links">
          {v.debugLinks.map((l) => (
            <li key={l.url}>
              {/^https?:\/\//i.test(l.url) ? (
                <a href={l.url} target="_blank" rel="noopener noreferrer">
                  {l.title}
                </a>
              ) : (
                // Only web links become links: a receiver's javascript: or data: URL stays text.
                <span>
                  {l.title}: <code>{l.url}</code>
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
