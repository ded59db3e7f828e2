import JSON5 from 'json5';
import { parse } from 'yaml';
import { toYaml } from '../format.js';

export type ValueFormat = 'yaml' | 'json5';

export interface EditorValue {
  format: ValueFormat;
  text: string;
}

export function editorValue(value: unknown, format: ValueFormat = 'yaml'): EditorValue {
  return { format, text: format === 'yaml' ? toYaml(value) : JSON5.stringify(value, null, 2) };
}

/** The text as JSON, or an error message naming what does not parse. */
export function parseEditor(value: EditorValue): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: value.format === 'yaml' ? (parse(value.text) as unknown) : (JSON5.parse(value.text) as unknown) };
  } catch (error) {
    return { ok: false, message: `is not valid ${value.format === 'yaml' ? 'YAML' : 'JSON5'}: ${(error as Error).message.split('\n')[0]}` };
  }
}

/** A JSON value edited as YAML or JSON5 text; switching the format converts text that parses. */
export function ValueEditor({ id, label, value, onChange, error, rows = 10 }: { id: string; label: string; value: EditorValue; onChange: (v: EditorValue) => void; error?: string; rows?: number }) {
  const switchTo = (format: ValueFormat): void => {
    if (format === value.format) return;
    const parsed = parseEditor(value);
    onChange(parsed.ok ? editorValue(parsed.value, format) : { format, text: value.text });
  };
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <fieldset class="inline">
        <legend class="visually-hidden">{label} format</legend>
        {(['yaml', 'json5'] as const).map((f) => (
          <label key={f} class="radio">
            <input type="radio" name={`${id}-format`} value={f} checked={value.format === f} onChange={() => switchTo(f)} /> {f === 'yaml' ? 'YAML' : 'JSON5'}
          </label>
        ))}
      </fieldset>
      <textarea
        id={id}
        class="code"
        rows={rows}
        spellcheck={false}
        value={value.text}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onInput={(e) => onChange({ format: value.format, text: (e.currentTarget as HTMLTextAreaElement).value })}
      />
      {error && (
        <p id={`${id}-error`} class="field-error">
          {label} {error}
        </p>
      )}
    </div>
  );
}
