/**
 * The reference API's limits (docs/design.md, "Entities and endpoints"), row by row, at both edges of every range: values just inside are
 * accepted, values just outside are a 400 naming the property and change nothing. (The 2-minute
 * webhook response time belongs to the review tests.)
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ok, SOURCE_BODY } from '../../test-support/experiment-fixtures.js';
import { storeSnapshot } from '../../test-support/validation-table.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let c: TestConsole;
let n = 0;
beforeEach(async () => {
  c = createTestConsole();
  await ok(c, 'POST', '/console/v1/holdouts', { name: 'holdout' }, 201);
  await ok(c, 'POST', '/console/v1/experiments/assignment_sources', SOURCE_BODY, 201);
});
afterEach(() => c.close());

/** A fresh valid name per call, so accepted creates never collide. */
const unique = (): string => `entity ${++n}`;
const x = (length: number): string => 'x'.repeat(length);

interface Limit {
  limit: string;
  property: string;
  accepted: unknown[];
  rejected: unknown[];
  send(t: TestConsole, value: unknown): Promise<LightMyRequestResponse>;
}

const post = (url: string, body: Record<string, unknown>) => (t: TestConsole) => t.call('POST', url, body);

const LIMITS: Limit[] = [
  { limit: 'dynamic config name 3–100', property: 'name', accepted: [x(3), x(100)], rejected: [x(2), x(101)], send: (t, v) => post('/console/v1/dynamic_configs', { name: v })(t) },
  { limit: 'gate name 3–100', property: 'name', accepted: [x(3), x(100)], rejected: [x(2), x(101)], send: (t, v) => post('/console/v1/gates', { name: v })(t) },
  { limit: 'prompt name 3–100', property: 'name', accepted: [x(3), x(100)], rejected: [x(2), x(101)], send: (t, v) => post('/console/v1/prompts', { name: v })(t) },
  { limit: 'prompt displayName 3–100', property: 'displayName', accepted: [x(3), x(100)], rejected: [x(2), x(101)], send: (t, v) => post('/console/v1/prompts', { name: unique(), displayName: v })(t) },
  { limit: 'dynamic config id 3–100', property: 'id', accepted: ['abc', x(100)], rejected: ['ab', x(101)], send: (t, v) => post('/console/v1/dynamic_configs', { name: unique(), id: v })(t) },
  { limit: 'dynamic config description ≤ 1000', property: 'description', accepted: ['', x(1000)], rejected: [x(1001)], send: (t, v) => post('/console/v1/dynamic_configs', { name: unique(), description: v })(t) },
  { limit: 'gate description ≤ 1000', property: 'description', accepted: ['', x(1000)], rejected: [x(1001)], send: (t, v) => post('/console/v1/gates', { name: unique(), description: v })(t) },
  { limit: 'prompt description ≤ 1000', property: 'description', accepted: ['', x(1000)], rejected: [x(1001)], send: (t, v) => post('/console/v1/prompts', { name: unique(), description: v })(t) },
  { limit: 'holdout description ≤ 1000', property: 'description', accepted: ['', x(1000)], rejected: [x(1001)], send: (t, v) => t.call('PATCH', '/console/v1/holdouts/holdout', { description: v }) },
  { limit: 'holdout passPercentage 0–10 (patch)', property: 'passPercentage', accepted: [0, 10, 0.5], rejected: [-0.01, 10.01, 100], send: (t, v) => t.call('PATCH', '/console/v1/holdouts/holdout', { passPercentage: v }) },
  {
    limit: 'holdout passPercentage 0–10 (full update)',
    property: 'passPercentage',
    accepted: [0, 10],
    rejected: [-1, 11],
    send: (t, v) => t.call('POST', '/console/v1/holdouts/holdout', { isEnabled: true, description: '', passPercentage: v, gateIDs: [], experimentIDs: [], layerIDs: [], isGlobal: false, targetingGateID: null }),
  },
  { limit: 'assignment source scheduledReloadHour integer 0–23', property: 'scheduledReloadHour', accepted: [0, 23, null], rejected: [-1, 24, 12.5], send: (t, v) => t.call('PATCH', '/console/v1/experiments/assignment_source/warehouse', { scheduledReloadHour: v }) },
];

describe('the reference API\'s limits (docs/design.md, "Entities and endpoints")', () => {
  it.each(LIMITS)('$limit: accepts the edges', async (limit) => {
    for (const value of limit.accepted) {
      const res = await limit.send(c, value);
      expect([200, 201], `${JSON.stringify(value)}: ${res.body}`).toContain(res.statusCode);
    }
  });

  it.each(LIMITS)('$limit: rejects beyond the edges with a 400 naming the property, changing nothing', async (limit) => {
    for (const value of limit.rejected) {
      const before = await storeSnapshot(c);
      const res = await limit.send(c, value);
      expect(res.statusCode, `${JSON.stringify(value)}: ${res.body}`).toBe(400);
      expect(res.json().errors.map((e: { property: string }) => e.property)).toEqual([limit.property]);
      expect(await storeSnapshot(c)).toBe(before);
    }
  });
});
