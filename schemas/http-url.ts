/** Whether text is an absolute http or https URL with a host: something a browser may open as a link. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Whether an http(s) URL carries a user name or password (`https://user:pass@host/`). */
export function hasUrlCredentials(text: string): boolean {
  try {
    const url = new URL(text);
    return url.username !== '' || url.password !== '';
  } catch {
    return false;
  }
}

/** The URL with any user name and password replaced by `***`: what may be shown of a URL stored with them. */
export function withoutUrlCredentials(text: string): string {
  if (!hasUrlCredentials(text)) return text;
  const url = new URL(text);
  url.username = '***';
  url.password = '';
  return url.toString();
}
