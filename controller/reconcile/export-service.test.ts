import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConsoleClient } from './console-client.js';
import { exportConsole } from './export-service.js';

/** A server answering the console's list endpoints: `lists` by path, an empty page for every other kind. */
async function fakeConsole(lists: Record<string, unknown[]>): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ message: 'Listed.', data: lists[path] ?? [], pagination: { itemsPerPage: 100, pageNumber: 1, totalItems: (lists[path] ?? []).length, nextPage: null, previousPage: null, all: path } }));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

let root: string;
let out: string;
let server: Server | undefined;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'flagops-export-'));
  out = join(root, 'a', 'b');
});
afterEach(async () => {
  if (server) await new Promise((done) => server!.close(done));
  server = undefined;
  rmSync(root, { recursive: true, force: true });
});

describe('exportConsole with ids that cannot name a file', () => {
  it('writes nothing, and names each refused id, when the console lists one that would leave the folder, is missing or repeats', async () => {
    const fake = await fakeConsole({
      '/console/v1/gates': [
        { id: '../../../escaped', name: 'escaped' },
        { id: 'fine_gate', name: 'fine_gate' },
        { id: 'fine_gate', name: 'again' },
        { name: 'no id' },
      ],
      '/console/v1/prompts': [{ name: 'a/b\u001b[2J' }],
    });
    server = fake.server;
    const client = new ConsoleClient({ baseUrl: fake.url, apiKey: 'console-key' });
    const error = await exportConsole(client, out).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.name).toBe('UpstreamError');
    expect(error?.message).toContain('listed 4 entities whose ids name no file: nothing was exported.');
    expect(error?.message).toContain('gates/"../../../escaped": id may contain only letters, digits, underscore, hyphen and period');
    expect(error?.message).toContain('gates/"fine_gate": the console listed this id more than once');
    expect(error?.message).toContain('gates/undefined: id is missing');
    expect(error?.message).toContain('prompts/"a/b\\u001b[2J": name may contain only letters');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(root)).toEqual([]);
  });
});
