import { useEffect, useState } from 'preact/hooks';

const CHANGE = 'flagops:navigate';

export interface Location {
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

/** Moves to a page of the console without reloading it. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  window.dispatchEvent(new Event(CHANGE));
  if (!options.replace) window.scrollTo(0, 0);
}

/** The current location; re-renders on back/forward and on navigate(). */
export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = (): void => setLocation(current());
    window.addEventListener('popstate', update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return location;
}

/** A same-page link click (no modifier keys, left button) becomes a navigate(); others behave as links do. */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.currentTarget as HTMLAnchorElement | null) ?? null;
  if (!anchor || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  if (anchor.target && anchor.target !== '_self') return;
  const url = new URL(anchor.href);
  if (url.origin !== window.location.origin) return;
  event.preventDefault();
  navigate(url.pathname + url.search);
}

/** Matches `/entities/:kind/:id` style patterns; values are URI-decoded. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.replace(/\/+$/, '').split('/');
  if (path === '/' && pattern === '/') return {};
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    const value = got[i] ?? '';
    if (part.startsWith(':')) {
      if (value === '') return undefined;
      params[part.slice(1)] = decodeURIComponent(value);
    } else if (part !== value) return undefined;
  }
  return params;
}
