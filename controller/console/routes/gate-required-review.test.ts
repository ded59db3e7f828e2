import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let c: TestConsole;
let member: string;
beforeEach(async () => {
  c = createTestConsole();
  member = await c.keyFor('dev@example.com', 'member');
  const res = await c.call('POST', '/console/v1/gates', { name: 'guarded', reviewSettings: { requiredReview: true, allowedReviewers: [] } }, member);
  expect(res.statusCode).toBe(201);
});
afterEach(() => c.close());

describe("a gate's own reviewSettings.requiredReview", () => {
  it.each([
    ['PATCH', '/console/v1/gates/guarded', { description: 'direct' }],
    ['POST', '/console/v1/gates/guarded', { isEnabled: true, description: 'direct', rules: [] }],
    ['PUT', '/console/v1/gates/guarded/disable', undefined],
    ['DELETE', '/console/v1/gates/guarded', undefined],
  ])('refuses a direct %s without bypass_reviews (403) and changes nothing', async (method, url, body) => {
    const res = await c.call(method, url, body, member);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toMatch(/requires reviews/);
    expect((await c.call('GET', '/console/v1/gates/guarded')).json().data).toMatchObject({ version: 1, isEnabled: true, description: '' });
  });

  it('lets a key with bypass_reviews write directly', async () => {
    const res = await c.call('PATCH', '/console/v1/gates/guarded', { description: 'admin fix' });
    expect(res.statusCode).toBe(200);
  });

  it('still takes the change through a review', async () => {
    const submitted = await c.call('POST', '/console/v1/gates/guarded/reviews', { description: 'reviewed', change: { description: 'reviewed change' } }, member);
    expect(submitted.statusCode).toBe(201);
    const id = submitted.json().data.reviewID as string;
    expect((await c.call('PUT', `/console/v1/gates/guarded/reviews/${id}/approve`, undefined, await c.keyFor('lead@example.com', 'member'))).statusCode).toBe(200);
    const committed = await c.call('PUT', `/console/v1/gates/guarded/reviews/${id}/commit`, undefined, member);
    expect(committed.json().data.status).toBe('committed');
    expect((await c.call('GET', '/console/v1/gates/guarded')).json().data.description).toBe('reviewed change');
  });
});
