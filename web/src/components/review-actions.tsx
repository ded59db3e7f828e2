import { useState } from 'preact/hooks';
import type { Review } from '../../../schemas/review.js';
import type { KindView } from '../kinds.js';
import { useSession } from '../session-context.js';
import { ErrorBox } from './error-box.js';

const COMMITTABLE = ['approved', 'approved_webhook_validation', 'validation_timed_out'];
const CANCELABLE = ['pending', 'approved', 'pending_webhook_validation', 'approved_webhook_validation', 'validation_timed_out'];

/**
 * Approve, reject, commit, commit with bypass and cancel, each shown only when the signed-in key's
 * permissions and the review's state allow it; the API still decides, and its error shows here.
 */
export function ReviewActions({ review, view, onChange }: { review: Review; view: KindView; onChange: (review: Review) => void }) {
  const { api, me, can } = useSession();
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState('');
  const base = `${view.listPath}/${encodeURIComponent(review.configName)}/reviews/${encodeURIComponent(review.reviewID)}`;
  const own = review.submitter === me.userEmail;

  const mayDecide = review.status === 'pending' && can('approve_reviews') && (!own || can('self_approve_review'));
  const mayCommit = COMMITTABLE.includes(review.status) && can('commit_reviews');
  const mayBypass = COMMITTABLE.includes(review.status) && can('commit_reviews') && can('bypass_precommit_webhook') && review.status !== 'approved_webhook_validation';
  const mayCancel = CANCELABLE.includes(review.status) && can('submit_reviews') && (own || me.role === 'admin');
  if (!mayDecide && !mayCommit && !mayBypass && !mayCancel) return null;

  const run = async (method: string, suffix: string, body?: unknown): Promise<void> => {
    setBusy(true);
    setError(undefined);
    setNotice('');
    try {
      const r = await api.request<Review>(method, `${base}${suffix}`, body);
      setNotice(r.message);
      setComment('');
      // A cancel answers without the review: read it again.
      onChange(r.data ?? (await api.get<Review>(`reviews/${encodeURIComponent(review.reviewID)}`)).data);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const decisionBody = (): { comment: string } | undefined => (comment.trim() ? { comment: comment.trim() } : undefined);

  return (
    <section class="actions card" aria-labelledby="actions-heading">
      <h2 id="actions-heading">Actions</h2>
      {mayDecide && (
        <div class="field">
          <label for="review-comment">Comment (optional)</label>
          <textarea id="review-comment" rows={2} maxLength={1000} value={comment} onInput={(e) => setComment((e.currentTarget as HTMLTextAreaElement).value)} />
        </div>
      )}
      <div class="buttons">
        {mayDecide && (
          <>
            <button type="button" class="primary" disabled={busy} onClick={() => run('PUT', '/approve', decisionBody())}>
              Approve
            </button>
            <button type="button" disabled={busy} onClick={() => run('PUT', '/reject', decisionBody())}>
              Reject
            </button>
          </>
        )}
        {mayCommit && (
          <button type="button" class="primary" disabled={busy} onClick={() => run('PUT', '/commit', {})}>
            Commit changes
          </button>
        )}
        {mayBypass && (
          <button type="button" class="danger" disabled={busy} onClick={() => run('PUT', '/commit', { bypassValidation: true })}>
            Commit changes (bypass validation)
          </button>
        )}
        {mayCancel && (
          <button type="button" disabled={busy} onClick={() => run('DELETE', '')}>
            Cancel review
          </button>
        )}
      </div>
      <p class="muted" role="status">
        {notice}
      </p>
      <ErrorBox error={error} title="The console refused" />
    </section>
  );
}
