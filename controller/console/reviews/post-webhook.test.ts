import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookPoster } from './post-webhook.js';

const servers: Server[] = [];
const posters: (() => void)[] = [];
afterEach(async () => {
  for (const close of posters.splice(0)) close();
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; sockets: Set<unknown> }> {
  const server = createServer(handler);
  const sockets = new Set<unknown>();
  server.on('connection', (socket) => sockets.add(socket));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, sockets };
}

function poster(): ReturnType<typeof createWebhookPoster> {
  const p = createWebhookPoster();
  posters.push(p.close);
  return p;
}

describe('createWebhookPoster', () => {
  it('POSTs the body with the headers and content length, answers the status, and keeps the connection for the next delivery', async () => {
    const seen: { method?: string; headers: Record<string, unknown>; body: string }[] = [];
    const target = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, headers: req.headers, body });
        res.writeHead(seen.length === 1 ? 200 : 503).end('ignored body');
      });
    });
    const { post } = poster();
    const body = JSON.stringify({ review_id: 'r1', text: 'ünïcode' });
    expect(await post(target.url, { 'content-type': 'application/json', 'x-service-webhook-key': 'k' }, body).status).toBe(200);
    expect(await post(target.url, {}, '{}').status).toBe(503);
    expect(seen[0]).toMatchObject({ method: 'POST', headers: { 'x-service-webhook-key': 'k', 'content-length': String(Buffer.byteLength(body)) }, body });
    expect(target.sockets.size).toBe(1);
  });

  it('does not follow a redirect: the 3xx is the answer', async () => {
    const target = await serve((_req, res) => res.writeHead(302, { location: 'http://elsewhere.test/' }).end());
    expect(await poster().post(target.url, {}, '{}').status).toBe(302);
  });

  it('fails with the error code when nothing listens, and with an AbortError when aborted', async () => {
    const target = await serve(() => undefined); // never answers
    const closed = await serve(() => undefined);
    await new Promise((done) => servers.pop()?.close(done));
    const { post } = poster();
    await expect(post(closed.url, {}, '{}').status).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const pending = post(target.url, {}, '{}');
    setTimeout(() => pending.abort(), 20);
    await expect(pending.status).rejects.toMatchObject({ name: 'AbortError' });
  });
});
