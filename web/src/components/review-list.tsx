import type { Review } from '../../../schemas/review.js';
import { humanize, showTime } from '../format.js';
import { Link } from './link.js';

/** Reviews in a table: what, who, status, when. */
export function ReviewList({ reviews, empty, caption }: { reviews: readonly Review[]; empty: string; caption?: string }) {
  if (reviews.length === 0) return <p class="muted">{empty}</p>;
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={caption ?? 'Reviews'}>
      <table>
        {caption && <caption>{caption}</caption>}
        <thead>
          <tr>
            <th scope="col">Review</th>
            <th scope="col">Change</th>
            <th scope="col">Status</th>
            <th scope="col">Submitter</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {reviews.map((r) => (
            <tr key={r.reviewID}>
              <td>
                <Link href={`/reviews/${encodeURIComponent(r.reviewID)}`}>{r.reviewID}</Link>
              </td>
              <td>
                {r.action} {humanize(r.configType)} <code>{r.configName}</code>
                {r.description && <div class="muted small">{r.description}</div>}
              </td>
              <td>
                <span class={`badge status-${r.status}`}>{humanize(r.status)}</span>
              </td>
              <td>{r.submitter}</td>
              <td>{showTime(r.lastModifiedTime)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
