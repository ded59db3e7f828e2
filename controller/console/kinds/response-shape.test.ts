import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { deepFreeze } from '../../core/deep-freeze.js';
import { conformOwnCopy, conformToSchema } from './response-shape.js';

const Schema = z.strictObject({
  name: z.string(),
  team: z.string().nullable(),
  owner: z.strictObject({ ownerID: z.string() }).optional(),
  value: z.record(z.string(), z.unknown()),
  rules: z.array(z.strictObject({ name: z.string(), operator: z.string().optional(), rollouts: z.array(z.number()), returnValue: z.unknown() })),
});

describe('conformToSchema', () => {
  it('leaves out a null the schema does not allow, and keeps one it allows', () => {
    expect(conformToSchema(Schema, { name: 'a', team: null, owner: null, value: {}, rules: [] })).toEqual({ name: 'a', team: null, value: {}, rules: [] });
  });

  it('fills a required list or object the record lacks, at any depth', () => {
    expect(conformToSchema(Schema, { name: 'a', team: 't', rules: [{ name: 'r' }] })).toEqual({ name: 'a', team: 't', value: {}, rules: [{ name: 'r', rollouts: [] }] });
  });

  it('drops nulls inside list items but never inside JSON values', () => {
    const out = conformToSchema(Schema, { name: 'a', team: 't', value: { x: null }, rules: [{ name: 'r', operator: null, rollouts: [], returnValue: { y: null } }] });
    expect(out).toEqual({ name: 'a', team: 't', value: { x: null }, rules: [{ name: 'r', rollouts: [], returnValue: { y: null } }] });
  });

  it('copies only what changes and never touches a frozen record', () => {
    const rules = [{ name: 'r', rollouts: [] }];
    const record = deepFreeze({ name: 'a', team: null, owner: null, value: {}, rules });
    const out = conformToSchema(Schema, record);
    expect(out).not.toBe(record);
    expect(out['rules']).toBe(record.rules);
    expect(record).toHaveProperty('owner', null);
    const already = { name: 'a', team: null, value: {}, rules };
    expect(conformToSchema(Schema, already)).toBe(already);
  });
});

describe('conformOwnCopy', () => {
  it('changes the caller’s own copy in place, to what conformToSchema returns, key order included', () => {
    const nested = deepFreeze([{ name: 'r', operator: null, rollouts: [] }]);
    const cases = [
      { name: 'a', team: null, owner: null, value: {}, rules: nested },
      { owner: null, name: 'a', team: 't', rules: [{ name: 'r' }] },
      { name: 'a', team: 't', value: { x: null }, rules: [] },
    ];
    for (const base of cases) {
      const expected = conformToSchema(Schema, base);
      const own = { ...base };
      const out = conformOwnCopy(Schema, own);
      expect(out).toBe(own);
      expect(Object.keys(out)).toEqual(Object.keys(expected));
      expect(JSON.stringify(out)).toBe(JSON.stringify(expected));
    }
    // Nested values are copied where they change, never changed in place.
    expect(nested[0]).toEqual({ name: 'r', operator: null, rollouts: [] });
  });
});
