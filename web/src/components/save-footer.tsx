import { ErrorBox } from './error-box.js';

/** The end of a settings form: its submit button, what the last save said, and why it failed. */
export function SaveFooter({ label, notice, error }: { label: string; notice: string; error: unknown }) {
  return (
    <>
      <button type="submit" class="primary">
        {label}
      </button>
      <p role="status" class="muted">
        {notice}
      </p>
      <ErrorBox error={error} title="Not saved" />
    </>
  );
}
