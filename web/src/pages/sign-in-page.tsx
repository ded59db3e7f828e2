import { useState } from 'preact/hooks';
import { createApi } from '../api.js';
import { ErrorBox } from '../components/error-box.js';
import type { WhoAmI } from '../session-context.js';

/** Asks for an API key and checks it with /whoami before keeping it. */
export function SignInPage({ onSignedIn, notice }: { onSignedIn: (key: string, me: WhoAmI) => void; notice?: string }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const trimmed = key.trim();
    if (trimmed === '') {
      setError(new Error('API key: enter the console key to sign in with.'));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const me = await createApi(trimmed, () => undefined).get<WhoAmI>('whoami');
      onSignedIn(trimmed, me.data);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="signin">
      <h1>flagops console</h1>
      {notice && (
        <p role="status" class="banner">
          {notice}
        </p>
      )}
      <p>Sign in with a console API key. It is kept in this tab's session storage only and is sent as the SERVICE-API-KEY header.</p>
      <form onSubmit={submit} class="card">
        <label for="api-key">API key</label>
        <input id="api-key" name="api-key" type="password" autocomplete="off" spellcheck={false} value={key} onInput={(e) => setKey((e.currentTarget as HTMLInputElement).value)} />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <ErrorBox error={error} title="Sign-in failed" />
      </form>
      <p>
        <a href="/docs">API documentation</a>
      </p>
    </main>
  );
}
