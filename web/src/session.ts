/**
 * The API key lives in sessionStorage only: it goes when the tab closes, is never put in a URL and
 * never written to a log.
 */
const KEY = 'flagops.consoleKey';

export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function storeKey(key: string): void {
  sessionStorage.setItem(KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY);
}
