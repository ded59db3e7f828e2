import type { Api, Json } from '../api.js';
import { conditionInWords, type ConditionLike } from '../condition-words.js';
import { useAsync } from '../use-async.js';
import { ErrorBox } from './error-box.js';

const asList = (value: unknown): Json[] => (Array.isArray(value) ? value.filter((v): v is Json => typeof v === 'object' && v !== null) : []);
const asNumber = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const clampPercent = (value: number): number => Math.max(0, Math.min(100, value));

/** A pass percentage as a bar, with its number for screen readers and anyone who reads it. */
export function PercentBar({ percent, label }: { percent: number; label: string }) {
  const shown = clampPercent(percent);
  return (
    <span class="percent">
      <span class="percent-bar" role="img" aria-label={`${label}: ${shown}%`}>
        <span class="percent-fill" style={{ width: `${shown}%` }} />
      </span>
      <span class="percent-number">{shown}%</span>
    </span>
  );
}

/** Shares of a whole (experiment groups, a layer's allocation) side by side in one bar. */
export function SplitBar({ parts, label }: { parts: { name: string; percent: number }[]; label: string }) {
  const total = parts.reduce((sum, p) => sum + clampPercent(p.percent), 0);
  const rest = Math.max(0, 100 - total);
  const described = [...parts.map((p) => `${p.name} ${clampPercent(p.percent)}%`), ...(rest > 0 ? [`unallocated ${rest}%`] : [])].join(', ');
  return (
    <div class="split">
      <div class="split-bar" role="img" aria-label={`${label}: ${described}`}>
        {parts.map((p, i) => (
          <span key={p.name} class={`split-part split-${i % 6}`} style={{ width: `${clampPercent(p.percent)}%` }} title={`${p.name}: ${clampPercent(p.percent)}%`} />
        ))}
      </div>
      <ul class="split-legend">
        {parts.map((p, i) => (
          <li key={p.name}>
            <span class={`swatch split-${i % 6}`} aria-hidden="true" /> {p.name} {clampPercent(p.percent)}%
          </li>
        ))}
        {rest > 0 && <li class="muted">unallocated {rest}%</li>}
      </ul>
    </div>
  );
}

function RuleList({ rules, withValue }: { rules: Json[]; withValue: boolean }) {
  if (rules.length === 0) return <p class="muted">No rules: everyone gets the default.</p>;
  return (
    <ol class="rules">
      {rules.map((rule, i) => {
        const name = typeof rule['name'] === 'string' ? rule['name'] : `Rule ${i + 1}`;
        const environments = Array.isArray(rule['environments']) ? (rule['environments'] as unknown[]).map(String) : [];
        return (
          <li key={typeof rule['id'] === 'string' ? rule['id'] : i} class="rule">
            <div class="rule-head">
              <strong>{name}</strong>
              <PercentBar percent={asNumber(rule['passPercentage'])} label={`${name} passes`} />
            </div>
            <ul class="conditions">
              {asList(rule['conditions']).map((c, j) => (
                <li key={j}>{conditionInWords(c as unknown as ConditionLike)}</li>
              ))}
              {environments.length > 0 && <li class="muted">only in {environments.join(', ')}</li>}
            </ul>
            {withValue && rule['returnValue'] !== undefined && (
              <p class="muted">
                returns <code>{JSON.stringify(rule['returnValue'])}</code>
              </p>
            )}
          </li>
        );
      })}
    </ol>
  );
}

function LayerAllocation({ api, layerId }: { api: Api; layerId: string }) {
  const experiments = useAsync((signal) => api.get<Json[]>('experiments', { query: { limit: 100 }, signal }).then((r) => r.data), [api]);
  const inLayer = (experiments.data ?? []).filter((e) => e['layerID'] === layerId);
  return (
    <>
      <ErrorBox error={experiments.error} />
      {experiments.data &&
        (inLayer.length === 0 ? (
          <p class="muted">No experiment is allocated in this layer: everyone gets its defaults.</p>
        ) : (
          <SplitBar label="Layer allocation" parts={inLayer.map((e) => ({ name: String(e['id']), percent: asNumber(e['allocation']) }))} />
        ))}
    </>
  );
}

/** The entity's targeting, readable: rules with their conditions in words and pass percentages as bars. */
export function RuleSummary({ api, kind, entity }: { api: Api; kind: string; entity: Json }) {
  let body;
  if (kind === 'gate' || kind === 'dynamic_config' || kind === 'segment') {
    body = <RuleList rules={asList(entity['rules'])} withValue={kind === 'dynamic_config'} />;
  } else if (kind === 'experiment') {
    const groups = asList(entity['groups']).map((g) => ({ name: String(g['name']), percent: asNumber(g['size']) }));
    body = (
      <>
        <p>
          Allocated: <PercentBar percent={asNumber(entity['allocation'])} label="Allocation" />
          {typeof entity['layerID'] === 'string' && entity['layerID'] !== '' && <span class="muted"> of layer {entity['layerID']}</span>}
        </p>
        <SplitBar label="Groups" parts={groups} />
      </>
    );
  } else if (kind === 'layer') {
    body = <LayerAllocation api={api} layerId={String(entity['id'])} />;
  } else {
    return null;
  }
  return (
    <section aria-labelledby="targeting-heading">
      <h2 id="targeting-heading">Targeting</h2>
      {body}
    </section>
  );
}
