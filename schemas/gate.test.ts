import { describe, expect, it } from 'vitest';
import { describeSchemaCases } from '../controller/test-support/schema-cases.js';
import { GATE_DEFAULTS, GateCreateSchema, GateOverridesChangeSchema, GateSchema, GateWritableSchema } from './gate.js';

const OVERRIDES = {
  passingUserIDs: ['alice'],
  failingUserIDs: ['mallory'],
  passingCustomIDs: ['acme'],
  failingCustomIDs: [],
  environmentOverrides: [{ environment: 'staging', unitID: null, passingIDs: ['tester'], failingIDs: [] }],
};

describeSchemaCases('GateCreateSchema: overrides', GateCreateSchema, { id: 'beta', name: 'beta', overrides: OVERRIDES }, [
  { label: 'an empty user id', path: 'overrides.passingUserIDs.0', value: '', property: 'overrides.passingUserIDs[0]' },
  { label: '2001 failing user ids', path: 'overrides.failingUserIDs', value: Array.from({ length: 2001 }, (_, i) => `u${i}`), property: 'overrides.failingUserIDs' },
  { label: 'an unknown list', path: 'overrides.passingIDs', value: [], property: 'overrides.passingIDs' },
  { label: 'environment override ids as a string', path: 'overrides.environmentOverrides.0.passingIDs', value: 'tester', property: 'overrides.environmentOverrides[0].passingIDs' },
  { label: 'environment override with an unknown key', path: 'overrides.environmentOverrides.0.env', value: 'x', property: 'overrides.environmentOverrides[0].env' },
]);

describeSchemaCases('GateOverridesChangeSchema (POST, PATCH, DELETE .../overrides)', GateOverridesChangeSchema, { passingUserIDs: ['alice'] }, [
  { label: 'a list of numbers', path: 'failingUserIDs', value: [1], property: 'failingUserIDs[0]' },
  { label: 'an unknown field', path: 'overrides', value: {}, property: 'overrides' },
  { label: 'environment overrides as an object', path: 'environmentOverrides', value: {}, property: 'environmentOverrides' },
]);

describe('gate schemas', () => {
  it('the defaults cover every writable field but name; every writable field is in the response', () => {
    expect(Object.keys(GATE_DEFAULTS).sort()).toEqual(Object.keys(GateWritableSchema.shape).filter((k) => k !== 'name').sort());
    expect(GateWritableSchema.safeParse({ ...GATE_DEFAULTS, name: 'abc' }).error).toBeUndefined();
    expect(Object.keys(GateWritableSchema.shape).filter((k) => !(k in GateSchema.shape))).toEqual([]);
  });

  it('overrides left out are empty lists', () => {
    const parsed = GateCreateSchema.parse({ name: 'abc', overrides: { environmentOverrides: [{ environment: 'prod' }] } });
    expect(parsed.overrides).toEqual({ passingUserIDs: [], failingUserIDs: [], passingCustomIDs: [], failingCustomIDs: [], environmentOverrides: [{ environment: 'prod', passingIDs: [], failingIDs: [] }] });
  });
});
