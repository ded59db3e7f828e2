import { describe, expect, it } from 'vitest';
import { createTestConsole } from '../../test-support/test-console.js';

describe('GET /healthz', () => {
  it('answers the console readiness probe without a key', async () => {
    const c = createTestConsole();
    const res = await c.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
    await c.close();
  });
});
