import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import type { Body } from '../../test-support/validation-table.js';

let c: TestConsole;
beforeEach(() => {
  c = createTestConsole();
});
afterEach(() => c.close());

const GROUPS = [
  { name: 'control', size: 50, parameterValues: {} },
  { name: 'test', size: 50, parameterValues: {} },
];

/** Each kind with creator fields: a create body, and a full update body that leaves them out. */
const KINDS: { kind: string; create: Body; update: Body }[] = [
  { kind: 'gates', create: { name: 'made by' }, update: { isEnabled: true, description: 'full', rules: [] } },
  { kind: 'dynamic_configs', create: { name: 'made by' }, update: { isEnabled: true, description: 'full', rules: [] } },
  { kind: 'segments', create: { name: 'made by', type: 'rule_based' }, update: { type: 'rule_based', description: 'full' } },
  { kind: 'layers', create: { name: 'made by' }, update: { description: 'full', parameters: [] } },
  {
    kind: 'holdouts',
    create: { name: 'made by' },
    update: { description: 'full', isEnabled: true, passPercentage: 1, gateIDs: [], experimentIDs: [], layerIDs: [], isGlobal: false, targetingGateID: null },
  },
  { kind: 'experiments', create: { name: 'made by', groups: GROUPS }, update: { description: 'full', idType: 'userID', hypothesis: 'h', groups: GROUPS, allocation: 100 } },
];

const CREATOR = { creatorID: 'u-7', creatorEmail: 'maker@example.com' };

describe.each(KINDS)('a full update of $kind', ({ kind, create, update }) => {
  it('keeps the creator fields it leaves out, as it keeps the name', async () => {
    const created = await c.call('POST', `/console/v1/${kind}`, { ...create, ...CREATOR });
    expect(created.statusCode, created.body).toBe(201);
    const updated = await c.call('POST', `/console/v1/${kind}/made_by`, update);
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().data).toMatchObject({ ...CREATOR, description: 'full', version: 2 });
    expect((await c.call('GET', `/console/v1/${kind}/made_by`)).json().data).toMatchObject(CREATOR);
  });

  it('sets the creator fields it carries, null included', async () => {
    expect((await c.call('POST', `/console/v1/${kind}`, { ...create, ...CREATOR })).statusCode).toBe(201);
    const updated = await c.call('POST', `/console/v1/${kind}/made_by`, { ...update, creatorID: 'u-8', creatorEmail: null });
    expect(updated.statusCode, updated.body).toBe(200);
    const data = updated.json().data as Body;
    expect(data['creatorID']).toBe('u-8');
    // Experiments leave out a field that is not set (the reference API types none of theirs as nullable).
    expect(data['creatorEmail'] ?? null).toBeNull();
  });
});
