import { createHash } from 'node:crypto';

/**
 * The id a rule (or variant) gets from its name when it states none: the console gives it at
 * creation and keeps it through renames, and evaluation from files, where rules usually carry no
 * id, derives the same one. Rule ids salt the bucketing, so a rule created from a file buckets the
 * same units in `flagops eval DIR`, flag tests and the console.
 */
export function ruleIdFromName(name: string): string {
  return createHash('sha256').update(`rule\0${name}`).digest('base64url').slice(0, 16);
}
