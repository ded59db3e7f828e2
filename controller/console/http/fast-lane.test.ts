import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { installFastLanes, type FastLane, type FastLaneKit } from './fast-lane.js';

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

const kit: FastLaneKit = { requestId: () => 'id-1', answered: () => undefined, failed: () => undefined };

async function serve(lanes: FastLane[], closing: () => boolean): Promise<string> {
  server = createServer((_request: IncomingMessage, response: ServerResponse) => response.end('fallback'));
  installFastLanes(server, lanes, kit, closing);
  await new Promise<void>((done) => server?.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const fast: FastLane = (request, response) => {
  if (request.url !== '/fast') return false;
  response.end('lane');
  return true;
};

describe('installFastLanes', () => {
  it('lets a lane take the requests it can answer and hands the rest on', async () => {
    const base = await serve([fast], () => false);
    expect(await (await fetch(`${base}/fast`)).text()).toBe('lane');
    expect(await (await fetch(`${base}/other`)).text()).toBe('fallback');
  });

  it('hands everything on while the console closes', async () => {
    const base = await serve([fast], () => true);
    expect(await (await fetch(`${base}/fast`)).text()).toBe('fallback');
  });

  it('hands on a request whose lane threw before answering', async () => {
    const broken: FastLane = () => {
      throw new Error('bug');
    };
    const base = await serve([broken, fast], () => false);
    expect(await (await fetch(`${base}/fast`)).text()).toBe('fallback');
  });

  it('refuses a server without exactly one request handler to put them before', () => {
    const bare = createServer();
    expect(() => installFastLanes(bare, [fast], kit, () => false)).toThrow(/one request handler/);
  });
});
