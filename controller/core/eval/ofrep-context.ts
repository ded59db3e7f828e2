import type { EvalUser } from './eval-user.js';
import { isPlainObject } from '../is-plain-object.js';

/**
 * An OpenFeature evaluation context as the engine's user: `targetingKey` is the userID; `email`,
 * `ip`, `userAgent`, `country`, `locale` and `appVersion` are the user fields of those names (text);
 * `customIDs` the custom unit ids (text values); every other key a custom field.
 */

export type ContextProblem = { code: 'TARGETING_KEY_MISSING' | 'INVALID_CONTEXT'; message: string };

const USER_FIELDS = ['email', 'ip', 'userAgent', 'country', 'locale', 'appVersion'] as const;

export function userFromContext(context: unknown): { user: EvalUser } | { problem: ContextProblem } {
  if (!isPlainObject(context)) return { problem: { code: 'INVALID_CONTEXT', message: 'context must be an object.' } };
  const key = context['targetingKey'];
  if (key === undefined || key === null || key === '') return { problem: { code: 'TARGETING_KEY_MISSING', message: 'context.targetingKey is required: it is the unit\'s userID.' } };
  if (typeof key !== 'string') return { problem: { code: 'INVALID_CONTEXT', message: `context.targetingKey must be a string, not ${typeName(key)}.` } };
  const user: EvalUser = { userID: key };
  const custom: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(context)) {
    if (name === 'targetingKey') continue;
    if ((USER_FIELDS as readonly string[]).includes(name)) {
      if (value === null || value === undefined) continue;
      if (typeof value !== 'string') return { problem: { code: 'INVALID_CONTEXT', message: `context.${name} must be a string, not ${typeName(value)}.` } };
      (user as Record<string, unknown>)[name] = value;
    } else if (name === 'customIDs') {
      if (value === null || value === undefined) continue;
      if (!isPlainObject(value)) return { problem: { code: 'INVALID_CONTEXT', message: `context.customIDs must be an object of id type → id, not ${typeName(value)}.` } };
      for (const [idType, id] of Object.entries(value)) {
        if (typeof id !== 'string') return { problem: { code: 'INVALID_CONTEXT', message: `context.customIDs.${idType} must be a string, not ${typeName(id)}.` } };
      }
      user.customIDs = value;
    } else {
      custom[name] = value;
    }
  }
  user.custom = custom;
  return { user };
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
