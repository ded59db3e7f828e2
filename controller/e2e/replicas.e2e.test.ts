/**
 * Two `flagops serve` replicas on one PostgreSQL database behave as one console: requests alternate
 * between them (directly, or through a round-robin load balancer), a replica killed with SIGKILL
 * loses no acknowledged write, and the other one takes over its webhook deliveries in time.
 * Needs the compiled CLI (`npm run build`, which `npm test` runs first) and PostgreSQL (CI starts it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test-support/postgres-db.js';
import { describeWithPostgres } from '../test-support/test-environment.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../test-support/round-robin-proxy.js';
import { BIN, runBuiltCli, spawnConsole, type SpawnedConsole } from '../test-support/spawn-console.js';
import { exampleGitRepo } from '../test-support/git-repo.js';

const ADMIN = 'console-replicas-admin';
const WEBHOOK_KEY = 'whk-replicas-secret';

type Json = Record<string, unknown>;

async function api(base: string, method: string, path: string, body?: unknown, key = ADMIN, headers: Record<string, string> = {}): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'SERVICE-API-KEY': key, ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? {} : (JSON.parse(text) as Json) };
}

const dataOf = (res: { json: Json }): Json => res.json['data'] as Json;

let db: TestDatabase | undefined;
let replicas: SpawnedConsole[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

async function startReplicas(timeoutMs = 20_000): Promise<[SpawnedConsole, SpawnedConsole]> {
  db = await createTestDatabase();
  // Started together: the schema migration and the bootstrap key must not race.
  const started = await Promise.all([0, 1].map(() => spawnConsole({ db: db!.url, key: ADMIN, args: ['--webhook-timeout', String(timeoutMs)] })));
  replicas = started;
  return [started[0]!, started[1]!];
}

async function createKey(base: string, email: string, role: string): Promise<string> {
  const res = await api(base, 'POST', '/console/v1/keys', { description: email, userEmail: email, role });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return String(dataOf(res)['key']);
}

/** The replica holding a review's webhook delivery lease, by the pid its owner name carries. */
async function deliveringPid(reviewId: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: db!.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ owner: string }>('SELECT owner FROM leases WHERE name = $1', [`webhook:${reviewId}`]);
    const owner = rows[0]?.owner;
    return owner === undefined ? undefined : Number(owner.split(':')[1]);
  } finally {
    await client.end();
  }
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

interface Receiver {
  url: string;
  deliveries: Json[];
  onDelivery: (handler: (body: Json, respond: (status: number) => void) => void) => void;
  close(): Promise<void>;
}

/** A pre-commit webhook receiver the test scripts: each delivery is handed to the current handler. */
function startReceiver(): Promise<Receiver> {
  const deliveries: Json[] = [];
  let handler: (body: Json, respond: (status: number) => void) => void = (_body, respond) => respond(200);
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(text) as Json;
      deliveries.push(body);
      handler(body, (status) => res.writeHead(status).end());
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
        deliveries,
        onDelivery: (next) => (handler = next),
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await Promise.all(replicas.map((r) => killed(r.child)));
  replicas = [];
  await db?.drop();
  db = undefined;
});

describeWithPostgres('two replicas on one PostgreSQL database', () => {
  it('behave as one console request by request: reads after writes, If-Match, one decision per review, a webhook answered through the other replica', async () => {
    const [a, b] = await startReplicas();
    const approver = await createKey(b.url, 'lead@example.com', 'member');
    const second = await createKey(a.url, 'second@example.com', 'member');
    const validator = await createKey(b.url, 'ci@example.com', 'webhook_receiver');

    expect((await api(a.url, 'POST', '/console/v1/gates', { id: 'alt_gate', name: 'alt gate' })).status).toBe(201);
    expect(dataOf(await api(b.url, 'GET', '/console/v1/gates/alt_gate'))['version']).toBe(1);
    // Every write acknowledged by one replica is what the next read on the other sees.
    let stale = 0;
    for (let i = 0; i < 40; i++) {
      const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a];
      expect((await api(writer.url, 'PATCH', '/console/v1/gates/alt_gate', { description: `write ${i}` })).status).toBe(200);
      if (dataOf(await api(reader.url, 'GET', '/console/v1/gates/alt_gate'))['description'] !== `write ${i}`) stale++;
    }
    expect(stale, 'stale reads across replicas').toBe(0);

    // If-Match holds across replicas, also when both write the same version at the same moment.
    const version = dataOf(await api(a.url, 'GET', '/console/v1/gates/alt_gate'))['version'] as number;
    const racing = await Promise.all(
      [a, b].map((r, i) => api(r.url, 'PATCH', '/console/v1/gates/alt_gate', { description: `race ${i}` }, ADMIN, { 'If-Match': `"${version}"` })),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([200, 409]);
    const creates = await Promise.all([a, b].map((r) => api(r.url, 'POST', '/console/v1/gates', { id: 'twice', name: 'twice' })));
    expect(creates.map((r) => r.status).sort()).toEqual([201, 409]);

    // One decision per review: two reviewers approve on different replicas at the same moment.
    for (let i = 0; i < 5; i++) {
      const submitted = await api(a.url, 'POST', '/console/v1/gates/alt_gate/reviews', { change: { description: `decided once ${i}` } });
      const decided = String(dataOf(submitted)['reviewID']);
      const decisions = await Promise.all(
        [
          [a, approver],
          [b, second],
        ].map(([replica, key]) => api((replica as SpawnedConsole).url, 'PUT', `/console/v1/gates/alt_gate/reviews/${decided}/approve`, undefined, key as string)),
      );
      expect(decisions.map((d) => d.status).sort()).toEqual([200, 409]);
      expect((await api(b.url, 'DELETE', `/console/v1/gates/alt_gate/reviews/${decided}`)).status).toBe(200);
    }

    // The pre-commit webhook: delivered by the replica that committed, decided through the other one,
    // a long poll on the first woken by it.
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const decisionsSeen: { status: number; json: Json }[] = [];
    receiver.onDelivery((body, respond) => {
      respond(200);
      void api(b.url, 'POST', '/console/v1/change_validation', { reviewID: body['review_id'], validated: true, message: 'matches git' }, validator).then((r) => decisionsSeen.push(r), (e: unknown) => decisionsSeen.push({ status: -1, json: { error: String(e) } }));
    });
    expect((await api(b.url, 'POST', '/console/v1/settings/precommit_webhook', { webhookURL: receiver.url, webhookKey: WEBHOOK_KEY })).status).toBe(200);
    const review = String(dataOf(await api(a.url, 'POST', '/console/v1/gates/alt_gate/reviews', { change: { isEnabled: false } }))['reviewID']);
    expect((await api(b.url, 'PUT', `/console/v1/gates/alt_gate/reviews/${review}/approve`, undefined, approver)).status).toBe(200);
    const commit = await api(a.url, 'PUT', `/console/v1/gates/alt_gate/reviews/${review}/commit`);
    expect(dataOf(commit)['status']).toBe('pending_webhook_validation');
    const waited = await api(a.url, 'GET', `/console/v1/reviews/${review}?waitWhile=pending_webhook_validation&waitMs=15000`);
    expect(dataOf(waited)['status'], JSON.stringify(decisionsSeen)).toBe('approved_webhook_validation');
    expect((dataOf(waited)['validation'] as Json)['message']).toBe('matches git');
    expect(receiver.deliveries.filter((d) => d['review_id'] === review)).toHaveLength(1);
    expect(dataOf(await api(b.url, 'PUT', `/console/v1/gates/alt_gate/reviews/${review}/commit`))['status']).toBe('committed');
    expect(dataOf(await api(a.url, 'GET', '/console/v1/gates/alt_gate'))['isEnabled']).toBe(false);
  }, 60_000);

  it('apply the example repository through a round-robin load balancer, reviews and the bridge, then plan nothing', async () => {
    const [a, b] = await startReplicas();
    const proxy: RoundRobinProxy = await startRoundRobinProxy([a.url, b.url]);
    cleanups.push(() => proxy.close());
    const keys = {
      submitter: await createKey(proxy.url, 'flagops@ci.example.com', 'member'),
      // The example's new_checkout names its allowed reviewer.
      approver: await createKey(proxy.url, 'release-bot@acme.example', 'member'),
      bridge: await createKey(proxy.url, 'bridge@example.com', 'webhook_receiver'),
    };
    const dir = mkdtempSync(join(tmpdir(), 'flagops-replicas-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const repo = join(dir, 'repo');
    await exampleGitRepo(repo);

    const bridge = spawn(process.execPath, [BIN, 'bridge', '--repo', repo, '--branch', 'main', '--port', '0', '--console', proxy.url], {
      env: { ...process.env, FLAGOPS_API_KEY: keys.bridge, FLAGOPS_WEBHOOK_KEY: WEBHOOK_KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => killed(bridge));
    const bridgeUrl = await new Promise<string>((resolve, reject) => {
      bridge.once('exit', (code) => reject(new Error(`bridge exited ${code}`)));
      bridge.stdout?.on('data', (chunk: Buffer) => {
        const match = /flagops bridge listening on (\S+)/.exec(chunk.toString());
        if (match?.[1]) resolve(match[1]);
      });
    });
    expect((await api(proxy.url, 'POST', '/console/v1/settings/precommit_webhook', { webhookURL: `${bridgeUrl}/webhook`, webhookKey: WEBHOOK_KEY })).status).toBe(200);

    const env = { FLAGOPS_API_KEY: keys.submitter, FLAGOPS_APPROVER_KEY: keys.approver };
    const applied = await runBuiltCli(['apply', repo, '--auto-approve', '--console', proxy.url], env);
    expect(applied.code, applied.stderr.slice(0, 3000)).toBe(0);
    expect(applied.stdout).toMatch(/the console now matches the repository/);
    const committed = (await api(proxy.url, 'GET', '/console/v1/reviews?status=committed&limit=1000')).json['data'] as Json[];
    const validations = committed.map((r) => r['validation'] as Json | null).filter((v): v is Json => v !== null);
    // Every change the webhook saw was approved by the bridge (descriptive changes skip it).
    expect(validations.length).toBeGreaterThan(10);
    expect(validations.every((v) => v['validated'] === true)).toBe(true);
    const plan = await runBuiltCli(['plan', repo, '--console', proxy.url, '--detailed-exitcode'], env);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    // Both replicas did their share of the work.
    expect(proxy.served.get(a.url)).toBeGreaterThan(20);
    expect(proxy.served.get(b.url)).toBeGreaterThan(20);
  }, 120_000);

  it('kill -9 of the replica delivering a webhook: the other one delivers it and the review is decided within the window', async () => {
    const windowMs = 16_000;
    const [a, b] = await startReplicas(windowMs);
    const approver = await createKey(a.url, 'lead@example.com', 'member');
    const validator = await createKey(a.url, 'ci@example.com', 'webhook_receiver');
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const survivorOf = { url: '' };
    // The first delivery is never answered: its replica dies while it waits.
    receiver.onDelivery(() => undefined);
    expect((await api(a.url, 'POST', '/console/v1/settings/precommit_webhook', { webhookURL: receiver.url, webhookKey: WEBHOOK_KEY })).status).toBe(200);
    expect((await api(a.url, 'POST', '/console/v1/gates', { id: 'kill_gate', name: 'kill gate' })).status).toBe(201);
    const review = String(dataOf(await api(b.url, 'POST', '/console/v1/gates/kill_gate/reviews', { change: { isEnabled: false } }))['reviewID']);
    expect((await api(a.url, 'PUT', `/console/v1/gates/kill_gate/reviews/${review}/approve`, undefined, approver)).status).toBe(200);
    const committedAt = Date.now();
    expect(dataOf(await api(b.url, 'PUT', `/console/v1/gates/kill_gate/reviews/${review}/commit`))['status']).toBe('pending_webhook_validation');
    await until('the first delivery', 5000, async () => (receiver.deliveries.length > 0 ? true : undefined));

    const pid = await until('the delivery lease', 5000, () => deliveringPid(review));
    const delivering = [a, b].find((r) => r.child.pid === pid);
    const survivor = [a, b].find((r) => r.child.pid !== pid);
    expect(delivering, `lease owner pid ${pid} is one of the replicas`).toBeDefined();
    survivorOf.url = survivor!.url;
    receiver.onDelivery((body, respond) => {
      respond(200);
      void api(survivorOf.url, 'POST', '/console/v1/change_validation', { reviewID: body['review_id'], validated: true, message: 'validated after the crash' }, validator);
    });
    await killed(delivering!.child);

    const decided = await until('the decision', windowMs, async () => {
      const current = dataOf(await api(survivor!.url, 'GET', `/console/v1/reviews/${review}`));
      return current['status'] === 'pending_webhook_validation' ? undefined : current;
    });
    expect(decided['status']).toBe('approved_webhook_validation');
    expect(Date.now() - committedAt).toBeLessThan(windowMs);
    expect(receiver.deliveries.filter((d) => d['review_id'] === review)).toHaveLength(2);
    expect(await deliveringPid(review)).toBeUndefined();
  }, 60_000);

  it('settle read-then-write races on keys, users, roles and settings as one console would', async () => {
    const [a, b] = await startReplicas();
    for (let round = 0; round < 8; round++) {
      // A deactivation and an edit of the same key, one on each replica: the key ends deactivated.
      const created = await api(a.url, 'POST', '/console/v1/keys', { description: `k${round}`, userEmail: `k${round}@example.com`, role: 'member' });
      const id = String(dataOf(created)['id']);
      const secret = String(dataOf(created)['key']);
      const [off, edit] = await Promise.all([api(a.url, 'PATCH', `/console/v1/keys/${id}/deactivate`), api(b.url, 'PATCH', `/console/v1/keys/${id}`, { description: 'edited' })]);
      expect([off.status, edit.status]).toEqual([200, 200]);
      expect(dataOf(await api(b.url, 'GET', `/console/v1/keys/${id}`))).toMatchObject({ isActive: false, description: 'edited' });
      expect((await api(a.url, 'GET', '/console/v1/whoami', undefined, secret)).status).toBe(401);

      // Two settings updates of different fields: both fields are kept.
      const [url, message] = await Promise.all([
        api(a.url, 'POST', '/console/v1/settings/precommit_webhook', { webhookURL: `http://127.0.0.1:9/hook${round}`, webhookKey: 'k' }),
        api(b.url, 'POST', '/console/v1/settings/precommit_webhook', { initialMessage: `m${round}` }),
      ]);
      expect([url.status, message.status]).toEqual([200, 200]);
      expect(dataOf(await api(a.url, 'GET', '/console/v1/settings/precommit_webhook'))).toMatchObject({ webhookURL: `http://127.0.0.1:9/hook${round}`, initialMessage: `m${round}` });
      expect((await api(a.url, 'POST', '/console/v1/settings/precommit_webhook', { webhookURL: '' })).status).toBe(200);

      // The same new role, and a new user with two roles, created at once: one wins, the other is a 409.
      const roles = await Promise.all([a, b].map((r, i) => api(r.url, 'POST', '/console/v1/roles', { name: `role${round}`, permissions: i === 0 ? ['read'] : ['read', 'write'] })));
      expect(roles.map((r) => r.status).sort()).toEqual([201, 409]);
      const keys = await Promise.all(['member', 'read_only'].map((role, i) => api([a, b][i]!.url, 'POST', '/console/v1/keys', { description: 'u', userEmail: `u${round}@example.com`, role })));
      expect(keys.map((r) => r.status).sort()).toEqual([201, 409]);
    }
  });

  it('kill -9 under write load: no acknowledged write is lost', async () => {
    const [a, b] = await startReplicas();
    const proxy = await startRoundRobinProxy([a.url, b.url]);
    cleanups.push(() => proxy.close());
    const total = 600;
    const acknowledged: string[] = [];
    const refused: number[] = [];
    let sent = 0;
    let kill: Promise<void> | undefined;
    const worker = async (): Promise<void> => {
      while (sent < total) {
        const id = `load_${sent++}`;
        const res = await api(proxy.url, 'POST', '/console/v1/gates', { id, name: id }).catch(() => ({ status: 0, json: {} }));
        if (res.status === 201) acknowledged.push(id);
        else refused.push(res.status);
        if (acknowledged.length === 150 && kill === undefined) kill = killed(a.child);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    await kill;
    expect(a.child.signalCode).toBe('SIGKILL');

    const stored = new Set<string>();
    for (let page = 1; ; page++) {
      const res = await api(b.url, 'GET', `/console/v1/gates?limit=1000&page=${page}`);
      const items = res.json['data'] as Json[];
      for (const gate of items) stored.add(String(gate['id']));
      if (items.length < 1000) break;
    }
    const lost = acknowledged.filter((id) => !stored.has(id));
    expect({ sent: total, acknowledged: acknowledged.length, refusedWhileKilled: refused.length, lost: lost.length }).toEqual({
      sent: total,
      acknowledged: total - refused.length,
      refusedWhileKilled: refused.length,
      lost: 0,
    });
    expect(acknowledged.length).toBeGreaterThan(300);
    // Writes cut off by the kill were never acknowledged; they may or may not have committed.
    expect(refused.every((status) => status === 502 || status === 0)).toBe(true);
  }, 60_000);
});
