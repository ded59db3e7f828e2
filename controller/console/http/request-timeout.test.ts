/**
 * A client that trickles its request is cut off: the whole request (headers and body) must arrive
 * within the request timeout, else 408 in the API's envelope and the connection is closed. The
 * defaults are what docs/api.md documents.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createConsole, type ConsoleInstance } from '../../compose.js';
import { IDLE_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../build-console-app.js';

const KEY = 'request-timeout-admin-key';
let consoles: ConsoleInstance[] = [];
afterEach(async () => {
  for (const instance of consoles) await instance.close();
  consoles = [];
});

async function listening(requestTimeoutMs?: number): Promise<{ instance: ConsoleInstance; port: number }> {
  const instance = createConsole({ db: ':memory:', bootstrapKey: KEY, publicUrl: 'http://console.test', ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }) });
  consoles.push(instance);
  await instance.app.listen({ port: 0, host: '127.0.0.1' });
  const address = instance.app.server.address();
  return { instance, port: typeof address === 'object' && address !== null ? address.port : 0 };
}

describe('request timeout', () => {
  it('cuts off a body that trickles in a byte at a time, with a 408 in the envelope, and keeps serving others', async () => {
    const { port } = await listening(400);
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(`POST /console/v1/gates HTTP/1.1\r\nHost: console.test\r\nservice-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{`);
    // One byte every 50 ms: the connection never goes idle, the request never completes.
    const trickle = setInterval(() => socket.writable && socket.write(' '), 50);
    await closed;
    clearInterval(trickle);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({ status: 408, message: 'The request took too long to arrive.' });
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
  });

  it('does not cut off a long poll: the limit is on the request arriving, not on the answer', async () => {
    const { port } = await listening(300);
    const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: { data?: Record<string, unknown> } }> => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { 'service-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, json: (await res.json()) as { data?: Record<string, unknown> } };
    };
    const created = await call('POST', '/console/v1/gates', { id: 'gate1', name: 'gate1' });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const submitted = await call('POST', '/console/v1/gates/gate1/reviews', { change: { isEnabled: false } });
    const id = String(submitted.json.data?.['reviewID']);
    // Held for 1 s, three times the request timeout: answered with the review as it stands.
    const held = await call('GET', `/console/v1/reviews/${id}?waitWhile=pending&waitMs=1000`);
    expect(held.status).toBe(200);
    expect(held.json.data?.['status']).toBe('pending');
  });

  it('is 30 s by default, with a 120 s idle timeout and 72 s keep-alive', async () => {
    const { instance } = await listening();
    expect(instance.app.server.requestTimeout).toBe(REQUEST_TIMEOUT_MS);
    expect(REQUEST_TIMEOUT_MS).toBe(30_000);
    expect(instance.app.server.timeout).toBe(IDLE_TIMEOUT_MS);
    expect(IDLE_TIMEOUT_MS).toBe(120_000);
    expect(instance.app.server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS);
    expect(KEEP_ALIVE_TIMEOUT_MS).toBe(72_000);
  });
});
