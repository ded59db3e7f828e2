/**
 * Whether two e-mail addresses name the same user. Addresses compare case-insensitively: "M@x" and
 * "m@x" are one person, whose keys, reviews and separation of duty must not tell them apart.
 */
export function sameEmail(a: string | null | undefined, b: string | null | undefined): boolean {
  return typeof a === 'string' && typeof b === 'string' && foldEmail(a) === foldEmail(b);
}

/** The form e-mail addresses are stored and compared in. */
export function foldEmail(email: string): string {
  return email.trim().toLowerCase();
}
