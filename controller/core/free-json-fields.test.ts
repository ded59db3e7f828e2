import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { JsonObjectSchema } from '../../schemas/common.js';
import { freeJsonFields } from './free-json-fields.js';

describe('freeJsonFields', () => {
  it('finds the fields of the entity schemas that hold a client’s own JSON, at any depth', () => {
    expect([...freeJsonFields(ENTITY_SCHEMAS.flatMap((e) => [e.create, e.response]))].sort()).toEqual(['defaultValue', 'metadata', 'parameterValues', 'returnValue']);
  });

  it('sees through wrappers, lists, records and unions, and leaves out a name that is structured elsewhere', () => {
    const Item = z.strictObject({ payload: z.unknown(), shared: JsonObjectSchema, name: z.string() });
    const Schema = z.strictObject({
      items: z.array(Item).optional(),
      values: z.record(z.string(), z.array(z.unknown())).nullable(),
      either: z.union([z.string(), JsonObjectSchema]).default('x'),
      nested: z.strictObject({ shared: z.strictObject({ conditions: z.array(z.string()) }) }),
      plain: z.number(),
    });
    expect([...freeJsonFields([Schema])].sort()).toEqual(['either', 'payload', 'values']);
  });
});
