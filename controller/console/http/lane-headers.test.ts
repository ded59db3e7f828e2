import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { laneHeaders } from './lane-headers.js';

const NAMES = ['authorization', 'x-api-key', 'content-type', 'content-length', 'origin', 'transfer-encoding', 'if-none-match', 'x-request-id'] as const;

/** Sends `raw` (rawHeaders format) to a real server and returns what Node parsed. */
async function parsedByNode(raw: string[]): Promise<IncomingMessage> {
  let seen: IncomingMessage | undefined;
  const server = createServer((req, res) => {
    seen = req;
    req.resume();
    req.on('end', () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: raw }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end('{}');
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!seen) throw new Error('no request arrived');
  return seen;
}

describe('laneHeaders', () => {
  it('reads the headers a lane needs as Node does, whatever their case, and skips the others', async () => {
    const raw = ['Host', 'example', 'AUTHORIZATION', 'Bearer k', 'X-Api-Key', 'k2', 'Content-Type', 'application/json', 'Content-Length', '2', 'Origin', 'https://a.example', 'If-None-Match', '"t"', 'X-Request-Id', 'trace-1', 'User-Agent', 'ua', 'X-Custom-Header', 'v'];
    const node = await parsedByNode(raw);
    const lane = laneHeaders(node.rawHeaders);
    expect(lane).toBeDefined();
    for (const name of NAMES) expect(lane?.[name], name).toBe(node.headers[name]);
  });

  it('gives up when a header it reads comes twice, in any case (Node would join or drop the repeat)', () => {
    for (const name of NAMES) {
      expect(laneHeaders([name, 'a', name.toUpperCase(), 'b']), name).toBeUndefined();
    }
    expect(laneHeaders(['accept', 'a', 'Accept', 'b', 'authorization', 'Bearer k'])?.authorization).toBe('Bearer k');
  });

  it('leaves absent headers undefined', () => {
    const lane = laneHeaders(['host', 'example']);
    for (const name of NAMES) expect(lane?.[name], name).toBeUndefined();
  });
});
