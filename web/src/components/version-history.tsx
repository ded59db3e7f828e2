import { useState } from 'preact/hooks';
import type { Api, Json } from '../api.js';
import { contentChanges } from '../content-diff.js';
import { showTime } from '../format.js';
import { useAsync } from '../use-async.js';
import { ErrorBox } from './error-box.js';
import { FieldDiff } from './field-diff.js';

const VERSIONS_SHOWN = 200;

/** Versions newest first, and the field-level diff between any two of them. */
export function VersionHistory({ api, path }: { api: Api; path: string }) {
  const versions = useAsync((signal) => api.get<Json[]>(path, { query: { limit: VERSIONS_SHOWN }, signal }), [api, path]);
  const [from, setFrom] = useState<number | undefined>();
  const [to, setTo] = useState<number | undefined>();
  const list = versions.data?.data ?? [];
  const numbers = list.map((v) => Number(v['version']));
  const toVersion = to ?? numbers[0];
  const fromVersion = from ?? numbers[1] ?? numbers[0];
  const older = list.find((v) => Number(v['version']) === fromVersion);
  const newer = list.find((v) => Number(v['version']) === toVersion);
  const total = versions.data?.pagination?.totalItems ?? list.length;
  const select = (id: string, label: string, value: number | undefined, set: (n: number) => void) => (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => set(Number((e.currentTarget as HTMLSelectElement).value))}>
        {list.map((v) => (
          <option key={String(v['version'])} value={Number(v['version'])}>
            v{String(v['version'])} · {showTime(v['lastModifiedTime'])} · {String(v['lastModifierName'] ?? '')}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <section aria-labelledby="versions-heading">
      <h2 id="versions-heading">Version history</h2>
      <ErrorBox error={versions.error} />
      {versions.data && list.length === 0 && <p class="muted">No versions recorded.</p>}
      {list.length > 0 && (
        <>
          <p class="muted">
            {total} {total === 1 ? 'version' : 'versions'}
            {total > list.length ? `; the newest ${list.length} are listed` : ''}.
          </p>
          <div class="filters">
            {select('diff-from', 'Compare version', fromVersion, setFrom)}
            {select('diff-to', 'with version', toVersion, setTo)}
          </div>
          {older && newer && <FieldDiff changes={contentChanges(older, newer)} caption={`Changes from version ${fromVersion} to version ${toVersion}`} />}
        </>
      )}
    </section>
  );
}
