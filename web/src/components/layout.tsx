import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { KINDS } from '../kinds.js';
import { useSession } from '../session-context.js';
import { Link } from './link.js';

/** Header with the menu, who is signed in and sign out; the page below. */
export function Layout({ path, children }: { path: string; children: ComponentChildren }) {
  const { me, can, signOut } = useSession();
  const current = (href: string): 'page' | undefined => (path === href || path.startsWith(`${href}/`) ? 'page' : undefined);
  const admin = can('manage_settings') || can('manage_keys') || can('manage_roles');
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  // After moving to another page, focus goes to its content (as a page load would put it at the top),
  // so keyboard and screen-reader users start there rather than on the link they left.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus();
  }, [path]);
  // The tab's title follows the page's heading, also one a page renders once its data has come.
  useEffect(() => {
    const node = main.current;
    if (!node) return undefined;
    const update = (): void => {
      const heading = node.querySelector('h1')?.textContent?.trim();
      const title = heading ? `${heading} · flagops console` : 'flagops console';
      if (document.title !== title) document.title = title;
    };
    update();
    const observer = new MutationObserver(update);
    observer.observe(node, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, []);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href="/" class="brand">
          flagops
        </Link>
        <nav aria-label="Main">
          <ul>
            {KINDS.map((k) => (
              <li key={k.folder}>
                <Link href={`/entities/${k.folder}`} aria-current={current(`/entities/${k.folder}`)}>
                  {k.plural}
                </Link>
              </li>
            ))}
            <li>
              <Link href="/reviews" aria-current={current('/reviews')}>
                Reviews
              </Link>
            </li>
            <li>
              <Link href="/audit" aria-current={current('/audit')}>
                Audit log
              </Link>
            </li>
            {admin && (
              <li>
                <Link href="/admin" aria-current={current('/admin')}>
                  Admin
                </Link>
              </li>
            )}
            <li>
              <a href="/docs">API docs</a>
            </li>
          </ul>
        </nav>
        <div class="who">
          <span data-testid="whoami">
            {me.userEmail} <span class="badge">{me.role}</span>
          </span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1} ref={main}>
        {children}
      </main>
    </>
  );
}
