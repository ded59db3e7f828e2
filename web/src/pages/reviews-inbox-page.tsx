import type { Review } from '../../../schemas/review.js';
import { ErrorBox } from '../components/error-box.js';
import { ReviewList } from '../components/review-list.js';
import { useSession, type Session } from '../session-context.js';
import { useAsync } from '../use-async.js';

const DECIDED = 'committed,rejected,failed_webhook_validation,canceled,stale';
const COMMITTABLE = ['approved', 'approved_webhook_validation', 'validation_timed_out'];

/** Reviews this key can act on next: others' to approve, approved ones to commit. */
function waitingFor(session: Session, reviews: readonly Review[]): Review[] {
  const { me, can } = session;
  return reviews.filter((r) => {
    if (r.status === 'pending') return can('approve_reviews') && (r.submitter !== me.userEmail || can('self_approve_review'));
    return COMMITTABLE.includes(r.status) && can('commit_reviews');
  });
}

export function ReviewsInboxPage() {
  const session = useSession();
  const { api } = session;
  const load = (status: string, limit: number) => (signal: AbortSignal) => api.get<Review[]>('reviews', { query: { status, limit }, signal }).then((r) => r.data);
  const open = useAsync(load(['pending', ...COMMITTABLE].join(','), 200), [api]);
  const validating = useAsync(load('pending_webhook_validation', 100), [api]);
  const decided = useAsync(load(DECIDED, 20), [api]);
  return (
    <>
      <h1>Reviews</h1>
      <section aria-labelledby="waiting-heading">
        <h2 id="waiting-heading">Waiting for me</h2>
        <ErrorBox error={open.error} />
        {open.data && <ReviewList reviews={waitingFor(session, open.data)} empty="Nothing waits for you." caption="Reviews waiting for me" />}
      </section>
      <section aria-labelledby="validating-heading">
        <h2 id="validating-heading">Pending validation</h2>
        <ErrorBox error={validating.error} />
        {validating.data && <ReviewList reviews={validating.data} empty="No change is being validated." caption="Reviews pending validation" />}
      </section>
      <section aria-labelledby="decided-heading">
        <h2 id="decided-heading">Recent decisions</h2>
        <ErrorBox error={decided.error} />
        {decided.data && <ReviewList reviews={decided.data} empty="No decisions yet." caption="Recent decisions" />}
      </section>
    </>
  );
}
