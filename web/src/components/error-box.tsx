import { ApiError } from '../api.js';

/** An error where it happened: the API's message and every field it names. */
export function ErrorBox({ error, title }: { error: unknown; title?: string }) {
  if (error === undefined || error === null) return null;
  if ((error as Error).name === 'AbortError') return null;
  const message = error instanceof Error ? error.message : String(error);
  const status = error instanceof ApiError && error.status > 0 ? ` (HTTP ${error.status})` : '';
  const fields = error instanceof ApiError ? error.errors : [];
  return (
    <div class="error" role="alert">
      <strong>{title ?? 'Error'}{status}:</strong> {message}
      {fields.length > 0 && (
        <ul>
          {fields.map((f) => (
            <li key={f.property + f.errorMessage}>
              <code>{f.property || '(body)'}</code> {f.errorMessage}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
