import { request as httpRequest, Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { readRestOfRefusedBody } from './read-rest-of-refused-body.js';

const LIMITS = { bytes: 20_000, ms: 300 };

/** A bare app whose body limit is 1,000 bytes and whose 413s linger within LIMITS. */
async function tinyApp(): Promise<{ app: FastifyInstance; port: number }> {
  const app = Fastify({ bodyLimit: 1_000 });
  app.setErrorHandler((error: { code?: string; statusCode?: number }, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') readRestOfRefusedBody(request, reply, LIMITS);
    void reply.status(error.statusCode ?? 500).send({ status: error.statusCode, message: 'refused' });
  });
  app.post('/echo', async (request) => ({ got: request.body }));
  app.get('/ping', async () => ({ pong: true }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return { app, port: typeof address === 'object' && address !== null ? address.port : 0 };
}

/** Writes raw HTTP, returns what the server sent and whether it closed the connection. */
function rawExchange(port: number, head: string, bodyPart: string, waitMs: number): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let text = '';
    let closed = false;
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
    socket.write(head + bodyPart);
    setTimeout(() => {
      socket.destroy();
      resolve({ text, closed });
    }, waitMs);
  });
}

let open: { close: () => unknown }[] = [];
afterEach(async () => {
  for (const o of open) await o.close();
  open = [];
});

/** Sends requests over one kept-alive connection; says whether each went over a connection used before. */
function keptAliveSender(port: number, headers: Record<string, string> = {}): (method: string, path: string, body?: string) => Promise<{ status: number; text: string; reused: boolean }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  open.push({ close: () => agent.destroy() });
  return (method, path, body) =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ port, host: '127.0.0.1', method, path, agent, headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, reused: req.reusedSocket }));
      });
      req.on('error', reject);
      req.end(body);
    });
}

describe('readRestOfRefusedBody', () => {
  it('lets a client that writes its whole body first read the 413, and keeps the connection for the next request', async () => {
    const { app, port } = await tinyApp();
    open.push(app);
    const send = keptAliveSender(port);
    const refused = await send('POST', '/echo', JSON.stringify({ x: 'x'.repeat(15_000) }));
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.text)).toEqual({ status: 413, message: 'refused' });
    const next = await send('GET', '/ping');
    expect(next).toMatchObject({ status: 200, reused: true });
    expect(JSON.parse(next.text)).toEqual({ pong: true });
  });

  it('reads a chunked body without a length to its end as well', async () => {
    const { app, port } = await tinyApp();
    open.push(app);
    const chunk = 'x'.repeat(3_000);
    const body = `${chunk.length.toString(16)}\r\n${chunk}\r\n`.repeat(4) + '0\r\n\r\n';
    const { text } = await rawExchange(port, 'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n', body, 200);
    expect(text).toMatch(/^HTTP\/1.1 413/);
    expect(text).not.toMatch(/connection: close/i);
  });

  it('closes at once for a body declared larger than it reads', async () => {
    const { app, port } = await tinyApp();
    open.push(app);
    const { text, closed } = await rawExchange(port, `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${LIMITS.bytes + 1}\r\n\r\n`, '{"x":"', 200);
    expect(text).toMatch(/^HTTP\/1.1 413/);
    expect(text).toMatch(/connection: close/i);
    expect(closed).toBe(true);
  });

  it('closes when the rest of the body does not arrive in time', async () => {
    const { app, port } = await tinyApp();
    open.push(app);
    // Declared 5,000 bytes, sends 2,000 and stalls: the 413 comes at once, the close after LIMITS.ms.
    const head = 'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n';
    const early = await rawExchange(port, head, 'x'.repeat(2_000), 100);
    expect(early.text).toMatch(/^HTTP\/1.1 413/);
    expect(early.closed).toBe(false);
    const late = await rawExchange(port, head, 'x'.repeat(2_000), LIMITS.ms + 300);
    expect(late.closed).toBe(true);
  });

  it('closes when the body outgrows the bytes it reads', async () => {
    const { app, port } = await tinyApp();
    open.push(app);
    const chunk = 'x'.repeat(8_000);
    const body = `${chunk.length.toString(16)}\r\n${chunk}\r\n`.repeat(4);
    const { text, closed } = await rawExchange(port, 'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n', body, 150);
    expect(text).toMatch(/^HTTP\/1.1 413/);
    expect(closed).toBe(true);
  });
});

describe('the console, a body over its limit on a real connection', () => {
  let c: TestConsole | undefined;
  afterEach(() => {
    // fetch keeps its connection for the next request: the console would wait for it to go idle.
    c?.app.server.closeAllConnections();
    return c?.close();
  });

  it('answers fetch, which writes the whole body before it reads, with the 413 envelope', async () => {
    c = createTestConsole();
    const url = await c.app.listen({ port: 0, host: '127.0.0.1' });
    const res = await fetch(`${url}/console/v1/gates`, {
      method: 'POST',
      headers: { 'SERVICE-API-KEY': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'huge body', description: 'x'.repeat(3_000_000) }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ status: 413, message: 'Request body is too large.', errors: [{ property: '(body)', errorMessage: 'is larger than the accepted size' }] });
    expect((await c.call('GET', '/console/v1/gates')).json().data).toEqual([]);
  });

  it('reads the rest of the refused body and keeps the connection', async () => {
    c = createTestConsole();
    await c.app.listen({ port: 0, host: '127.0.0.1' });
    const address = c.app.server.address();
    const send = keptAliveSender(typeof address === 'object' && address !== null ? address.port : 0, { 'SERVICE-API-KEY': ADMIN_KEY });
    expect(await send('POST', '/console/v1/gates', JSON.stringify({ name: 'huge body', description: 'x'.repeat(1_100_000) }))).toMatchObject({ status: 413 });
    expect(await send('GET', '/console/v1/gates')).toMatchObject({ status: 200, reused: true });
  });
});
