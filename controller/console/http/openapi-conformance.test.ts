/**
 * /openapi.json describes what the server sends. Every test console records its responses and checks
 * them against its own document when it closes (test-support/openapi-conformance.ts), so every route
 * test is also a conformance test; this file shows that the check catches an undocumented status or
 * shape, and drives the responses the document was once silent about (dry-run creates, keys and
 * roles lists, every kind with unset fields).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FULL_EXPERIMENT, SOURCE_BODY } from '../../test-support/experiment-fixtures.js';
import { conformanceOf, recordResponses, type OpenApiConformance, type RecordedResponse } from '../../test-support/openapi-conformance.js';
import { apiPathOf, SAMPLE_ENTITIES } from '../../test-support/sample-entities.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let c: TestConsole;
beforeEach(() => {
  c = createTestConsole();
});
afterEach(() => c.close());

const response = (over: Partial<RecordedResponse>): RecordedResponse => ({
  method: 'GET',
  route: '/console/v1/gates/:id',
  url: '/console/v1/gates/g',
  status: 200,
  contentType: 'application/json; charset=utf-8',
  body: '{}',
  ...over,
});

describe('the conformance check', () => {
  let conformance: OpenApiConformance;
  let gate: Record<string, unknown>;
  beforeEach(async () => {
    conformance = await conformanceOf(c.app);
    const res = await c.call('POST', '/console/v1/gates', { id: 'some_gate', name: 'some gate', rules: [{ name: 'all', passPercentage: 50, conditions: [{ type: 'public' }] }] });
    gate = res.json().data as Record<string, unknown>;
  });
  const read = (data: unknown): RecordedResponse => response({ body: JSON.stringify({ message: 'ok', data }) });

  it('passes a real response', () => {
    expect(conformance.violation(read(gate))).toBeUndefined();
  });

  it('fails on a status the document does not list for the route', () => {
    expect(conformance.violation(response({ status: 201, body: JSON.stringify({ message: 'ok', data: gate }) }))).toMatch(/status 201 is not documented/);
    expect(conformance.violation(response({ method: 'DELETE', route: '/console/v1/gates/:id/enable', status: 200 }))).toMatch(/is not in \/openapi\.json/);
  });

  it('fails on a body of another shape: a missing field, a null the schema has no room for, an unknown field, a rule without rollouts', () => {
    const { rules: _r, ...withoutRules } = gate;
    expect(conformance.violation(read(withoutRules))).toMatch(/must have required property 'rules'/);
    expect(conformance.violation(read({ ...gate, owner: null }))).toMatch(/\/data\/owner must be object/);
    expect(conformance.violation(read({ ...gate, extra: 1 }))).toMatch(/must NOT have additional properties 'extra'/);
    const rule = (gate['rules'] as Record<string, unknown>[])[0] as Record<string, unknown>;
    const { pendingAutomatedRollouts: _p, ...bare } = rule;
    expect(conformance.violation(read({ ...gate, rules: [bare] }))).toMatch(/pendingAutomatedRollouts/);
    expect(conformance.violation(response({ body: JSON.stringify({ data: gate }) }))).toMatch(/must have required property 'message'/);
  });

  it('fails on an error outside the envelope, and on a body where the document gives none', () => {
    expect(conformance.violation(response({ status: 404, body: JSON.stringify({ error: 'Not Found' }) }))).toMatch(/does not match/);
    expect(conformance.violation(response({ status: 404, contentType: 'text/plain', body: 'Not Found' }))).toMatch(/content type text\/plain/);
  });

  it("makes a test console's close() fail, naming the response", async () => {
    const t = createTestConsole();
    t.app.get('/console/v1/undocumented', async () => ({ message: 'hi' }));
    expect((await t.call('GET', '/console/v1/undocumented')).statusCode).toBe(200);
    await expect(t.close()).rejects.toThrow(/GET \/console\/v1\/undocumented → 200: GET \/console\/v1\/undocumented is not in \/openapi\.json/);
  });
});

describe('responses the document describes', () => {
  it('dry-run creates answer 200, documented beside the 201', async () => {
    const recorded = recordResponses(c.app);
    const config = await c.call('POST', '/console/v1/dynamic_configs?dryRun=true', { name: 'dry config', defaultValue: { a: 1 } });
    expect(config.statusCode, config.body).toBe(200);
    const source = await c.call('POST', '/console/v1/experiments/assignment_sources', { ...SOURCE_BODY, dryRun: true });
    expect(source.statusCode, source.body).toBe(200);
    expect(recorded.responses.map((r) => r.status)).toEqual([200, 200]);
    expect(await recorded.violations()).toEqual([]);
  });

  it('every kind, read, listed and versioned, with unset fields and with every field set, conforms', async () => {
    const recorded = recordResponses(c.app);
    for (const { folder, body } of SAMPLE_ENTITIES) expect((await c.call('POST', apiPathOf(folder), body)).statusCode).toBe(201);
    expect((await c.call('POST', '/console/v1/experiments', { ...FULL_EXPERIMENT, assignmentSourceName: null, layerID: null, targetingGateID: null })).statusCode).toBe(201);
    for (const { folder } of SAMPLE_ENTITIES) expect((await c.call('GET', apiPathOf(folder))).statusCode).toBe(200);
    expect((await c.call('GET', '/console/v1/experiments/plain_experiment/versions')).statusCode).toBe(200);
    expect((await c.call('GET', '/console/v1/keys')).statusCode).toBe(200);
    expect((await c.call('GET', '/console/v1/roles')).statusCode).toBe(200);
    expect(recorded.responses.length).toBeGreaterThan(SAMPLE_ENTITIES.length * 2);
    expect(await recorded.violations()).toEqual([]);
  });
});
