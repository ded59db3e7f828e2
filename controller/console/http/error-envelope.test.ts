/**
 * Every HTTP error the console sends, Fastify's and Node's own included, is the API's envelope
 * `{status, message, errors?}`, and /openapi.json documents the error responses of each route.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let c: TestConsole;
beforeAll(() => {
  c = createTestConsole();
});
afterAll(() => c.close());

function expectEnvelope(res: { statusCode: number; json: () => unknown }, status: number, property?: string): Record<string, unknown> {
  expect(res.statusCode).toBe(status);
  const body = res.json() as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(property === undefined ? ['message', 'status'] : ['errors', 'message', 'status']);
  expect(body['status']).toBe(status);
  expect(body['message']).toEqual(expect.any(String));
  if (property !== undefined) expect(body['errors']).toEqual([{ property, errorMessage: expect.any(String) }]);
  return body;
}

describe("Fastify's own errors in the API's envelope", () => {
  it('bad percent-encoding in the URL → 400 naming (url), with or without a key', async () => {
    expectEnvelope(await c.call('GET', '/console/v1/gates/%ZZ'), 400, '(url)');
    expectEnvelope(await c.app.inject({ method: 'GET', url: '/console/v1/gates/%ZZ' }), 400, '(url)');
  });

  it('a 101-character id → 400 naming id; one past the router limit → 414', async () => {
    const body = expectEnvelope(await c.call('GET', `/console/v1/gates/${'a'.repeat(101)}`), 400, 'id');
    expect(body['errors']).toEqual([{ property: 'id', errorMessage: 'must be at most 100 characters long' }]);
    expectEnvelope(await c.call('PUT', `/console/v1/gates/${'a'.repeat(101)}/enable`), 400, 'id');
    expectEnvelope(await c.call('GET', `/console/v1/gates/${'a'.repeat(1001)}`), 414, '(url)');
    // An id of the longest valid length still reaches the route.
    expect((await c.call('GET', `/console/v1/gates/${'a'.repeat(100)}`)).statusCode).toBe(404);
  });

  it('body too large → 413, not JSON → 415 naming content-type, malformed JSON → 400, unknown route → 404', async () => {
    expectEnvelope(await c.call('POST', '/console/v1/gates', JSON.stringify({ id: 'big', description: 'x'.repeat(1_100_000) })), 413, '(body)');
    expectEnvelope(await c.call('POST', '/console/v1/gates', '<gate/>', ADMIN_KEY, { 'content-type': 'application/xml' }), 415, 'content-type');
    expectEnvelope(await c.app.inject({ method: 'POST', url: '/console/v1/gates', headers: { 'service-api-key': ADMIN_KEY }, payload: 'id=x' }), 415, 'content-type');
    expectEnvelope(await c.call('POST', '/console/v1/gates', '{"id":'), 400, '(body)');
    expectEnvelope(await c.call('GET', '/console/v1/nothing-here'), 404);
    expectEnvelope(await c.call('DELETE', '/openapi.json'), 404);
  });

  it("headers too large for Node's parser → 431 in the envelope, on a real port", async () => {
    const address = new URL(await c.app.listen({ host: '127.0.0.1', port: 0 }));
    const res = await new Promise<{ statusCode: number; body: string }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port: Number(address.port), path: '/console/v1/gates', headers: { 'x-padding': 'p'.repeat(20_000) } }, (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ statusCode: response.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(res.statusCode).toBe(431);
    expect(JSON.parse(res.body)).toEqual({ status: 431, message: 'The request headers (or URL) are too large.' });
  });
});

describe('a request that arrives while the console closes', () => {
  it('is refused with a 503 in the envelope (connection: close), and close() still completes', async () => {
    const own = createTestConsole();
    const address = new URL(await own.app.listen({ host: '127.0.0.1', port: 0 }));
    const socket = connect(Number(address.port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let raw = '';
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // Half a request: the connection is busy, not idle, so closing waits for it instead of dropping it.
    socket.write(`GET /console/v1/gates HTTP/1.1\r\nHost: 127.0.0.1\r\nSERVICE-API-KEY: ${ADMIN_KEY}\r\n`);
    await new Promise((r) => setTimeout(r, 50));
    const closed = own.close();
    await new Promise((r) => setTimeout(r, 50));
    socket.write('\r\n');
    await ended;
    await closed;
    const [head = '', body = ''] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 503 /);
    expect(head.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(body)).toEqual({ status: 503, message: 'The console is shutting down; retry the request.' });
  });
});

describe('/openapi.json documents the error responses', () => {
  it('gives each route the statuses it can send, each with the error envelope schema', async () => {
    const doc = (await c.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
      components: { schemas: Record<string, unknown> };
    };
    const codes = (path: string, method: string) => Object.keys(doc.paths[path]?.[method]?.responses ?? {}).sort();
    expect(codes('/console/v1/gates', 'get')).toEqual(['200', '400', '401', '403', '404', '429', '431', '500', '503']);
    // 202: a write submitted as a review (x-respect-review-settings).
    expect(codes('/console/v1/gates', 'post')).toEqual(['201', '202', '400', '401', '403', '404', '409', '413', '415', '429', '431', '500', '503']);
    expect(codes('/console/v1/gates/{id}/enable', 'put')).toEqual(['200', '202', '400', '401', '403', '404', '409', '413', '414', '415', '429', '431', '500', '503']);
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          if (Number(status) >= 400) expect(response.content?.['application/json']?.schema, `${method} ${path} ${status}`).toEqual({ $ref: '#/components/schemas/ApiError' });
        }
      }
    }
    const error = doc.components.schemas['ApiError'] as Record<string, unknown>;
    expect(error).toMatchObject({ type: 'object', required: expect.arrayContaining(['status', 'message']) });
    expect(Object.keys(error['properties'] as object).sort()).toEqual(['errors', 'message', 'status']);
  });
});
