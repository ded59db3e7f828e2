import { stringify } from 'yaml';

/** A JSON value as short readable text: scalars as JSON, objects and lists as YAML. */
export function showValue(value: unknown): string {
  if (value === undefined) return '(absent)';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value) && value.length === 0) return '[]';
  if (!Array.isArray(value) && Object.keys(value).length === 0) return '{}';
  return stringify(value, { lineWidth: 0 }).trimEnd();
}

export function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0 });
}

/** Epoch milliseconds as a local date and time. */
export function showTime(ms: unknown): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '—';
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** `pending_webhook_validation` → `pending webhook validation`. */
export function humanize(value: string): string {
  return value.replaceAll('_', ' ');
}
