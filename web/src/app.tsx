import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, createApi } from './api.js';
import { ErrorBox } from './components/error-box.js';
import { Layout } from './components/layout.js';
import { Routes } from './routes.js';
import { useLocation } from './router.js';
import { forgetKey, storedKey, storeKey } from './session.js';
import { SessionContext, type Session, type WhoAmI } from './session-context.js';
import { DocsPage } from './pages/docs-page.js';
import { SignInPage } from './pages/sign-in-page.js';

export function App() {
  const location = useLocation();
  const [key, setKey] = useState<string | null>(storedKey);
  const [me, setMe] = useState<WhoAmI | undefined>();
  const [error, setError] = useState<unknown>();
  /** Why the session ended when the person did not end it: shown on the sign-in page. */
  const [ended, setEnded] = useState<string | undefined>();

  const signOut = (): void => {
    forgetKey();
    setKey(null);
    setMe(undefined);
  };
  const refused = (): void => {
    signOut();
    setEnded('The console no longer accepts this key (it was deactivated, rotated or deleted): sign in with a current one.');
  };
  const api = useMemo(() => (key ? createApi(key, refused) : undefined), [key]);

  useEffect(() => {
    if (!api || me) return;
    api.get<WhoAmI>('whoami').then(
      (r) => setMe(r.data),
      (e: unknown) => {
        if (e instanceof ApiError && e.status === 401) refused();
        else setError(e);
      },
    );
  }, [api, me]);

  const session = useMemo<Session | undefined>(
    () => (api && me ? { api, me, can: (p) => me.permissions.includes(p), signOut } : undefined),
    [api, me],
  );

  if (location.path === '/docs') return <DocsPage />;
  if (!key) {
    return (
      <SignInPage
        notice={ended}
        onSignedIn={(k, who) => {
          setEnded(undefined);
          storeKey(k);
          setKey(k);
          setMe(who);
        }}
      />
    );
  }
  if (!session) {
    return (
      <main id="main">
        {error ? <ErrorBox error={error} title="Could not reach the console" /> : <p aria-busy="true">Signing in…</p>}
      </main>
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <Layout path={location.path}>
        <Routes location={location} />
      </Layout>
    </SessionContext.Provider>
  );
}
