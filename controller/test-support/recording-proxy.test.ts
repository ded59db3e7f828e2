import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRecordingProxy, type RecordingProxy } from './recording-proxy.js';
import { ADMIN_KEY, createTestConsole, type TestConsole } from './test-console.js';

let c: TestConsole;
let proxy: RecordingProxy;
beforeEach(async () => {
  c = createTestConsole({ testRoutes: ['/console/v1/undocumented'] });
  c.app.get('/console/v1/undocumented', async () => ({ message: 'hi' }));
  proxy = await startRecordingProxy(await c.app.listen({ port: 0, host: '127.0.0.1' }));
});
afterEach(async () => {
  await proxy.close();
  await c.close();
});

const send = (method: string, path: string, body?: unknown) =>
  fetch(`${proxy.url}${path}`, { method, headers: { 'service-api-key': ADMIN_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });

describe('the recording proxy', () => {
  it('relays requests and answers unchanged, and records each response with the route it matched', async () => {
    const created = await send('POST', '/console/v1/gates', { id: 'some_gate', name: 'some gate' });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { data: { id: string } }).data.id).toBe('some_gate');
    expect((await send('PUT', '/console/v1/gates/some_gate/enable')).status).toBe(200);
    expect((await send('GET', '/console/v1/gates?limit=1')).status).toBe(200);
    expect((await send('GET', '/console/v1/nothing/here')).status).toBe(404);
    expect(await proxy.violations()).toEqual([]);
    expect(proxy.responses.map((r) => [r.method, r.route, r.status])).toEqual([
      ['POST', '/console/v1/gates', 201],
      ['PUT', '/console/v1/gates/{id}/enable', 200],
      ['GET', '/console/v1/gates', 200],
      ['GET', undefined, 404],
    ]);
  });

  it('names a response of a route the document does not have', async () => {
    expect((await send('GET', '/console/v1/undocumented')).status).toBe(200);
    expect(await proxy.violations()).toEqual([expect.stringMatching(/^GET \/console\/v1\/undocumented → 200: .* is not in \/openapi\.json$/)]);
  });
});
