import { useEffect, useState } from 'preact/hooks';
import { GATE_TYPES } from '../../../schemas/gate.js';
import type { Review } from '../../../schemas/review.js';
import { ApiError, type FieldProblem, type Json } from '../api.js';
import { ErrorBox } from '../components/error-box.js';
import { Link } from '../components/link.js';
import { editorValue, ValueEditor, type EditorValue } from '../components/value-editor.js';
import { changeOf, editableRules } from '../entity-change.js';
import type { KindView } from '../kinds.js';
import { navigate } from '../router.js';
import { useSession } from '../session-context.js';

interface Form {
  name: string;
  description: string;
  isEnabled: boolean;
  type: string;
  tags: string;
  rules: EditorValue;
  defaultValue: EditorValue;
  review: string;
}

function formOf(entity: Json): Form {
  return {
    name: String(entity['name'] ?? ''),
    description: String(entity['description'] ?? ''),
    isEnabled: entity['isEnabled'] !== false,
    type: String(entity['type'] ?? 'PERMANENT'),
    tags: Array.isArray(entity['tags']) ? (entity['tags'] as string[]).join(', ') : '',
    rules: editorValue(editableRules(entity['rules'])),
    defaultValue: typeof entity['defaultValueJson5'] === 'string' ? { format: 'json5', text: entity['defaultValueJson5'] } : editorValue(entity['defaultValue'] ?? {}),
    review: '',
  };
}

/** Edit a gate's or dynamic config's fields and submit the change as a review. */
export function EditEntityPage({ view, id }: { view: KindView; id: string }) {
  const { api } = useSession();
  const [entity, setEntity] = useState<Json | undefined>();
  const [form, setForm] = useState<Form | undefined>();
  const [loadError, setLoadError] = useState<unknown>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const item = `${view.itemPath}/${encodeURIComponent(id)}`;

  useEffect(() => {
    const controller = new AbortController();
    api.get<Json>(item, { signal: controller.signal }).then(
      (r) => {
        setEntity(r.data);
        setForm(formOf(r.data));
      },
      (e: unknown) => !controller.signal.aborted && setLoadError(e),
    );
    return () => controller.abort();
  }, [api, item]);

  if (loadError) return <ErrorBox error={loadError} />;
  if (!entity || !form) return <p aria-busy="true">Loading…</p>;
  const set = (patch: Partial<Form>): void => setForm({ ...form, ...patch });
  const problems = error instanceof ApiError ? error.errors : [];
  const fieldError = (name: string): string | undefined => {
    // The API names fields of a review's change as change.<field>.
    const at = (p: FieldProblem): string => p.property.replace(/^change\./, '');
    const p = problems.find((x) => at(x) === name || at(x).startsWith(`${name}.`) || at(x).startsWith(`${name}[`));
    return p ? `${at(p) === name ? '' : `(${at(p)}) `}${p.errorMessage}` : undefined;
  };

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const tags = form.tags
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    const kind = view.kind === 'gate' ? 'gate' : 'dynamic_config';
    const { change, problems: found } = changeOf(kind, entity, { ...form, tags, defaultValue: kind === 'dynamic_config' ? form.defaultValue : undefined });
    if (found.length > 0) {
      setError(new ApiError(0, 'The change is not valid.', found));
      return;
    }
    if (Object.keys(change).length === 0) {
      setError(new Error('Nothing changed: edit a field first.'));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const r = await api.request<Review>('POST', `${view.listPath}/${encodeURIComponent(id)}/reviews`, { description: form.review.trim() || `Edited in the web console: ${Object.keys(change).join(', ')}`, change });
      navigate(`/reviews/${encodeURIComponent(r.data.reviewID)}`);
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };

  const text = (name: 'name' | 'description' | 'tags' | 'review', label: string, hint?: string) => (
    <div class="field">
      <label for={`f-${name}`}>{label}</label>
      {name === 'description' || name === 'review' ? (
        <textarea id={`f-${name}`} rows={2} value={form[name]} aria-describedby={hint ? `f-${name}-hint` : undefined} aria-invalid={fieldError(name) ? true : undefined} onInput={(e) => set({ [name]: (e.currentTarget as HTMLTextAreaElement).value })} />
      ) : (
        <input id={`f-${name}`} type="text" value={form[name]} aria-describedby={hint ? `f-${name}-hint` : undefined} aria-invalid={fieldError(name) ? true : undefined} onInput={(e) => set({ [name]: (e.currentTarget as HTMLInputElement).value })} />
      )}
      {hint && (
        <p id={`f-${name}-hint`} class="muted small">
          {hint}
        </p>
      )}
      {fieldError(name) && (
        <p class="field-error">
          {label} {fieldError(name)}
        </p>
      )}
    </div>
  );

  return (
    <>
      <p class="crumbs">
        <Link href={`/entities/${view.folder}`}>{view.plural}</Link> / <Link href={`/entities/${view.folder}/${encodeURIComponent(id)}`}>{id}</Link> / edit
      </p>
      <h1>
        Edit {view.label.toLowerCase()} {id}
      </h1>
      <p>The change is submitted as a review; it applies once approved and committed.</p>
      <form onSubmit={submit} class="card edit" noValidate>
        {text('name', 'Name')}
        {text('description', 'Description')}
        <div class="field">
          <label class="checkbox">
            <input type="checkbox" checked={form.isEnabled} onChange={(e) => set({ isEnabled: (e.currentTarget as HTMLInputElement).checked })} /> Enabled
          </label>
        </div>
        {view.kind === 'gate' && (
          <div class="field">
            <label for="f-type">Type</label>
            <select id="f-type" value={form.type} onChange={(e) => set({ type: (e.currentTarget as HTMLSelectElement).value })}>
              {GATE_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </div>
        )}
        {text('tags', 'Tags', 'Comma separated.')}
        {view.kind === 'dynamic_config' && <ValueEditor id="f-defaultValue" label="Default value" value={form.defaultValue} onChange={(v) => set({ defaultValue: v })} error={fieldError('defaultValue') ?? fieldError('defaultValueJson5')} rows={8} />}
        <ValueEditor id="f-rules" label="Rules" value={form.rules} onChange={(v) => set({ rules: v })} error={fieldError('rules')} rows={14} />
        {text('review', 'Review description', 'Why the change is made; reviewers see it.')}
        <ErrorBox error={error} title="Not submitted" />
        <div class="buttons">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Submitting…' : 'Submit for review'}
          </button>
          <Link class="button" href={`/entities/${view.folder}/${encodeURIComponent(id)}`}>
            Discard
          </Link>
        </div>
      </form>
    </>
  );
}
