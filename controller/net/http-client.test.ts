import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient, decodeBody } from './http-client.js';

const servers: Server[] = [];
const clients: (() => void)[] = [];
afterEach(async () => {
  for (const close of clients.splice(0)) close();
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: URL; sockets: Set<unknown> }> {
  const server = createServer(handler);
  const sockets = new Set<unknown>();
  server.on('connection', (socket) => sockets.add(socket));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook?x=1`), sockets };
}

function client(): ReturnType<typeof createHttpClient> {
  const c = createHttpClient();
  clients.push(c.close);
  return c;
}

describe('createHttpClient', () => {
  it('sends method, path, headers and body with its length, reads the answer, and keeps the connection for the next request', async () => {
    const seen: { method?: string; url?: string; headers: Record<string, unknown>; body: string }[] = [];
    const target = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        res.writeHead(seen.length === 1 ? 200 : 503).end(`answer ${seen.length}`);
      });
    });
    const { send } = client();
    const body = JSON.stringify({ review_id: 'r1', text: 'ünïcode' });
    expect(await send({ method: 'POST', url: target.url, headers: { 'content-type': 'application/json', 'x-key': 'k' }, body })).toEqual({ status: 200, text: 'answer 1' });
    expect(await send({ method: 'GET', url: target.url, headers: {} })).toEqual({ status: 503, text: 'answer 2' });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/hook?x=1', headers: { 'x-key': 'k', 'content-length': String(Buffer.byteLength(body)) }, body });
    expect(seen[1]).toMatchObject({ method: 'GET', body: '' });
    expect(target.sockets.size).toBe(1);
  });

  it('does not follow a redirect: the 3xx is the answer', async () => {
    const target = await serve((_req, res) => res.writeHead(302, { location: 'http://elsewhere.test/' }).end());
    expect((await client().send({ method: 'POST', url: target.url, headers: {}, body: '{}' })).status).toBe(302);
  });

  it('fails with the error code when nothing listens, and with an AbortError when aborted', async () => {
    const silent = await serve(() => undefined); // never answers
    const closed = await serve(() => undefined);
    await new Promise((done) => servers.pop()?.close(done));
    const { send } = client();
    await expect(send({ method: 'GET', url: closed.url, headers: {} })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await expect(send({ method: 'GET', url: silent.url, headers: {}, signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('decodeBody', () => {
  it.each([
    ['empty', Buffer.alloc(0)],
    ['ASCII JSON', Buffer.from('{"data":[{"id":"a_gate","description":"plain"}]}')],
    ['every ASCII byte', Buffer.from(Array.from({ length: 128 }, (_, i) => i))],
    ['UTF-8 text', Buffer.from('{"description":"café ≥ 1 — 🚀"}')],
    ['a multi-byte character after ASCII', Buffer.concat([Buffer.alloc(70_000, 'a'), Buffer.from('é')])],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0xc3])],
    ['Latin-1 bytes that are not UTF-8', Buffer.from([0x63, 0x61, 0x66, 0xe9])],
  ])('gives what UTF-8 decoding gives: %s', (_, body) => {
    expect(decodeBody(body)).toBe(body.toString('utf8'));
  });

  it('reads a non-ASCII answer over HTTP as UTF-8, split across chunks', async () => {
    const text = `{"message":"${'x'.repeat(100_000)}é ≥ 🚀"}`;
    const { url } = await serve((_, res) => {
      const bytes = Buffer.from(text);
      // Split inside the two-byte é, so no chunk is valid UTF-8 on its own.
      const cut = bytes.indexOf(0xc3) + 1;
      res.write(bytes.subarray(0, cut));
      setTimeout(() => res.end(bytes.subarray(cut)), 5);
    });
    const answer = await client().send({ method: 'GET', url, headers: {} });
    expect(answer.text).toBe(text);
  });
});
