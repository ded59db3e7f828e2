import JSON5 from 'json5';
import { useState } from 'preact/hooks';
import { EvaluateRequestSchema, type EvaluationResult } from '../../../schemas/evaluation.js';
import { ApiError, zodProblems, type Api } from '../api.js';
import { ErrorBox } from './error-box.js';

interface Form {
  userID: string;
  email: string;
  country: string;
  appVersion: string;
  custom: string;
  environment: string;
}

const EMPTY: Form = { userID: '', email: '', country: '', appVersion: '', custom: '', environment: '' };

const OUTCOMES: Record<string, string> = {
  matched: 'matched',
  percentage_failed: 'conditions passed, outside the pass percentage',
  conditions_failed: 'conditions not met',
  delegated: 'handed to an experiment',
  unsupported: 'cannot be evaluated',
};

const show = (value: unknown): string => (value === undefined ? '—' : JSON.stringify(value));

/** The request the form describes, or the problems that keep it from being sent. */
function requestOf(flag: string, form: Form): { body: unknown } | { problems: { property: string; errorMessage: string }[] } {
  let custom: unknown;
  if (form.custom.trim() !== '') {
    try {
      custom = JSON5.parse(form.custom);
    } catch (error) {
      return { problems: [{ property: 'custom', errorMessage: `is not JSON5: ${(error as Error).message}` }] };
    }
  }
  const user: Record<string, unknown> = {};
  for (const name of ['userID', 'email', 'country', 'appVersion'] as const) if (form[name].trim() !== '') user[name] = form[name].trim();
  if (custom !== undefined) user['custom'] = custom;
  const body = { flag, user, ...(form.environment.trim() !== '' ? { environment: form.environment.trim() } : {}) };
  // The schema the endpoint validates with: a mistake is named here, before the request.
  const parsed = EvaluateRequestSchema.safeParse(body);
  return parsed.success ? { body } : { problems: zodProblems(parsed.error).map((p) => ({ ...p, property: p.property.replace(/^user\./, '') })) };
}

function Trail({ trail }: { trail: EvaluationResult['trail'] }) {
  if (trail.length === 0) return <p class="muted">No rule was evaluated.</p>;
  return (
    <table class="trail">
      <caption>Rules evaluated, in order</caption>
      <thead>
        <tr>
          <th scope="col">Rule</th>
          <th scope="col">Outcome</th>
          <th scope="col">Conditions</th>
        </tr>
      </thead>
      <tbody>
        {trail.map((rule) => (
          <tr key={rule.ruleID} class={`outcome-${rule.outcome}`}>
            <th scope="row">
              {rule.groupName ?? rule.ruleName}
              <span class="muted"> ({rule.passPercentage}%)</span>
            </th>
            <td>
              {OUTCOMES[rule.outcome] ?? rule.outcome}
              {rule.bucket !== undefined && <span class="muted"> · bucket {rule.bucket} of 10000</span>}
            </td>
            <td>
              <ul class="conditions">
                {rule.conditions.map((c, i) => (
                  <li key={i}>
                    <span aria-label={c.passed ? 'passed' : 'failed'}>{c.passed ? '✓' : '✗'}</span> {c.type}
                    {c.field ? ` ${c.field}` : ''} {c.operator ?? ''} {show(c.targetValue)}
                    {c.value !== undefined && <span class="muted"> (user: {show(c.value)})</span>}
                    {c.unsupported && <span class="field-error"> {c.unsupported}</span>}
                  </li>
                ))}
              </ul>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * "Try it": a user and an environment in, what this flag gives them and why out, through
 * POST /console/v1/evaluate (the engine the SDK endpoints and `flagops eval` use).
 */
export function TryItPanel({ api, flag }: { api: Api; flag: string }) {
  const [form, setForm] = useState<Form>(EMPTY);
  const [result, setResult] = useState<EvaluationResult | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  /** The user of the result shown, as it was asked (the form may have changed since). */
  const [asked, setAsked] = useState<Form | undefined>(undefined);
  const set = (patch: Partial<Form>) => setForm((f) => ({ ...f, ...patch }));

  const submit = async (event: Event) => {
    event.preventDefault();
    const request = requestOf(flag, form);
    if ('problems' in request) {
      setResult(undefined);
      setError(new ApiError(400, 'Invalid user.', request.problems));
      return;
    }
    setBusy(true);
    try {
      setResult((await api.request<EvaluationResult>('POST', 'evaluate', request.body)).data);
      setAsked(form);
      setError(undefined);
    } catch (caught) {
      setResult(undefined);
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const field = (name: keyof Form, label: string, hint?: string) => (
    <div class="field">
      <label for={`try-${name}`}>{label}</label>
      {name === 'custom' ? (
        <textarea id={`try-${name}`} rows={2} value={form[name]} aria-describedby={hint ? `try-${name}-hint` : undefined} onInput={(e) => set({ [name]: (e.currentTarget as HTMLTextAreaElement).value })} />
      ) : (
        <input id={`try-${name}`} type="text" value={form[name]} aria-describedby={hint ? `try-${name}-hint` : undefined} onInput={(e) => set({ [name]: (e.currentTarget as HTMLInputElement).value })} />
      )}
      {hint && (
        <p class="muted small" id={`try-${name}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );

  return (
    <section aria-labelledby="try-heading" class="try-it">
      <h2 id="try-heading">Try it</h2>
      <form onSubmit={submit} class="card" noValidate data-testid="try-it-form">
        <div class="try-fields">
          {field('userID', 'User ID')}
          {field('email', 'Email')}
          {field('country', 'Country', 'Two-letter code, e.g. DE')}
          {field('appVersion', 'App version', 'e.g. 2.5.1')}
          {field('environment', 'Environment', 'Empty: rules limited to environments do not apply')}
          {field('custom', 'Custom fields', 'JSON5, e.g. { plan: "pro" }')}
        </div>
        <div class="buttons">
          <button type="submit" class="primary" disabled={busy}>
            Evaluate
          </button>
        </div>
      </form>
      <ErrorBox error={error} />
      {result && (
        <div class="card try-result" data-testid="try-it-result" aria-live="polite">
          <p>
            <strong>For:</strong> <span data-testid="try-it-user">{asked?.userID || '(no user ID)'}</span>
            {asked?.email && <span class="muted"> · {asked.email}</span>}
          </p>
          <p>
            <strong>Value:</strong> <code data-testid="try-it-value">{show(result.value)}</code>
          </p>
          <p>
            <strong>Decided by:</strong>{' '}
            {result.reason === 'rule'
              ? `${result.groupName ? `group ${result.groupName} of ` : ''}rule ${result.ruleName ?? result.ruleID}`
              : result.reason === 'default'
                ? 'the default (no rule matched)'
                : result.reason === 'disabled'
                  ? 'the default (disabled)'
                  : 'an unsupported condition'}
            {result.experiment && <span> · allocated to experiment {result.experiment}</span>}
            {result.environment && <span class="muted"> · environment {result.environment}</span>}
          </p>
          {result.unsupported && (
            <p class="field-error">
              Rule {result.unsupported.ruleName} cannot be evaluated: {result.unsupported.reason}
            </p>
          )}
          <Trail trail={result.trail} />
          {result.experimentTrail && (
            <>
              <h3>In experiment {result.experiment}</h3>
              <Trail trail={result.experimentTrail} />
            </>
          )}
        </div>
      )}
    </section>
  );
}
