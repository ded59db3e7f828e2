import type { FieldChange } from '../../../controller/core/diff.js';
import { showValue } from '../format.js';

/** Field-level changes, old → new, one row a field. */
export function FieldDiff({ changes, caption }: { changes: readonly FieldChange[]; caption: string }) {
  if (changes.length === 0) return <p class="muted">No field differs.</p>;
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={caption}>
      <table class="diff">
        <caption>{caption}</caption>
        <colgroup>
          <col class="field" />
          <col />
          <col />
        </colgroup>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Old</th>
            <th scope="col">New</th>
          </tr>
        </thead>
        <tbody>
          {changes.map((c) => (
            <tr key={c.path}>
              <th scope="row">
                <code>{c.path}</code>
              </th>
              <td class="old">
                <pre>{showValue(c.old)}</pre>
              </td>
              <td class="new">
                <pre>{showValue(c.new)}</pre>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted small">Version, times and modifier are left out.</p>
    </div>
  );
}
