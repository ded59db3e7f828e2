import { describe, expect, it } from 'vitest';
import { describeSchemaCases, undescribedProperties } from '../controller/test-support/schema-cases.js';
import { REMOVE } from '../controller/test-support/validation-table.js';
import { PROMPT_DEFAULTS, PromptCreateSchema, PromptPatchSchema, PromptSchema, PromptWritableSchema } from './prompt.js';

const base = { name: 'support bot', displayName: 'Support Bot', description: 'd', targetApps: ['web'], team: 't', teamID: 'i', tags: ['x'], creatorID: null, creatorEmail: null, owner: null };

describeSchemaCases('PromptCreateSchema (POST /prompts)', PromptCreateSchema, base, [
  { label: 'no name', path: 'name', value: REMOVE, property: 'name' },
  { label: 'name of 2 characters', path: 'name', value: 'ab', property: 'name' },
  { label: 'name of 101 characters', path: 'name', value: 'x'.repeat(101), property: 'name' },
  { label: 'name with a slash', path: 'name', value: 'a/bc', property: 'name' },
  { label: 'displayName of 2 characters', path: 'displayName', value: 'ab', property: 'displayName' },
  { label: 'displayName of 101 characters', path: 'displayName', value: 'x'.repeat(101), property: 'displayName' },
  { label: 'displayName with a hash', path: 'displayName', value: 'a#bc', property: 'displayName' },
  { label: 'description of 1001 characters', path: 'description', value: 'x'.repeat(1001), property: 'description' },
  { label: 'an id', path: 'id', value: 'abc', property: 'id' },
]);

describeSchemaCases('PromptPatchSchema', PromptPatchSchema, { description: 'd' }, [
  { label: 'a new name', path: 'name', value: 'other', property: 'name' },
  { label: 'tags as a string', path: 'tags', value: 'x', property: 'tags' },
]);

describe('prompt schemas', () => {
  it('the defaults cover every writable field; every writable field is in the response; all described', () => {
    expect(Object.keys(PROMPT_DEFAULTS).sort()).toEqual(Object.keys(PromptWritableSchema.shape).sort());
    expect(Object.keys(PromptCreateSchema.shape).filter((k) => !(k in PromptSchema.shape))).toEqual([]);
    expect(undescribedProperties(PromptCreateSchema)).toEqual([]);
  });
});
