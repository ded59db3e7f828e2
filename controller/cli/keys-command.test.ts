/**
 * `flagops keys create --db PATH --email E --role R`: the printed key works against a console on
 * that database. The happy paths run the compiled CLI as a child process (`npm run build` first);
 * argument errors run in-process through runCli.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.js';
import { BIN, spawnConsole, type SpawnedConsole } from '../test-support/spawn-console.js';
import { runCli } from './cli.js';
import type { CliIO } from './command.js';
import { COMMANDS } from './commands.js';

const run = promisify(execFile);

let dir: string;
let counter = 0;
const running: SpawnedConsole[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flagops-keys-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

const newDb = (): string => join(dir, `keys-${++counter}`, 'console.db');

async function keysCreate(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env['FLAGOPS_BOOTSTRAP_KEY'];
  return run(process.execPath, [BIN, 'keys', 'create', ...args], { env });
}

async function api(server: SpawnedConsole, key: string, method: string, path: string, body?: unknown): Promise<number> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'SERVICE-API-KEY': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

describe('flagops keys create (child process)', () => {
  it('prints only the secret on stdout; the key works against a console on that database', async () => {
    const db = newDb();
    const { stdout, stderr } = await keysCreate(['--db', db, '--email', 'ops@example.com', '--role', 'admin']);
    expect(stdout).toMatch(/^console-[A-Za-z0-9_-]+\n$/);
    const secret = stdout.trim();
    expect(stderr).toMatch(/Created key key_\w+ for ops@example\.com \(role admin\)/);

    const server = await spawnConsole({ db, withoutBootstrapKey: true });
    running.push(server);
    expect(await api(server, secret, 'POST', '/console/v1/gates', { name: 'from the shell' })).toBe(201);
    // The database had a key, so serve generated none.
    const keys = await fetch(`${server.url}/console/v1/keys`, { headers: { 'SERVICE-API-KEY': secret } });
    expect(((await keys.json()) as { data: { userEmail: string; role: string }[] }).data).toEqual([expect.objectContaining({ userEmail: 'ops@example.com', role: 'admin' })]);
  });

  it('creates keys with the role given: a member may write gates but not manage keys', async () => {
    const db = newDb();
    const admin = (await keysCreate(['--db', db, '--email', 'ops@example.com', '--role', 'admin'])).stdout.trim();
    const member = (await keysCreate(['--db', db, '--email', 'dev@example.com', '--role', 'member', '--description', 'laptop'])).stdout.trim();
    const readOnly = (await keysCreate(['--db', db, '--email', 'bot@example.com', '--role', 'member', '--read-only'])).stdout.trim();

    const server = await spawnConsole({ db, withoutBootstrapKey: true });
    running.push(server);
    expect(await api(server, member, 'POST', '/console/v1/gates', { name: 'member gate' })).toBe(201);
    expect(await api(server, member, 'GET', '/console/v1/keys')).toBe(403);
    expect(await api(server, readOnly, 'GET', '/console/v1/gates')).toBe(200);
    expect(await api(server, readOnly, 'PATCH', '/console/v1/gates/member_gate', { description: 'x' })).toBe(403);
    const keys = await fetch(`${server.url}/console/v1/keys`, { headers: { 'SERVICE-API-KEY': admin } });
    const listed = ((await keys.json()) as { data: { userEmail: string; description: string; scopes: string[] }[] }).data;
    expect(listed.map((k) => [k.userEmail, k.description, k.scopes])).toEqual([
      ['ops@example.com', 'created with flagops keys create', []],
      ['dev@example.com', 'laptop', []],
      ['bot@example.com', 'created with flagops keys create', ['omni_read_only']],
    ]);
  });

  it('stores the key hashed, never the secret', async () => {
    const db = newDb();
    const secret = (await keysCreate(['--db', db, '--email', 'ops@example.com', '--role', 'admin'])).stdout.trim();
    const store = openSqliteStore(db);
    try {
      expect(JSON.stringify((await store.auth.listKeys()))).not.toContain(secret);
    } finally {
      store.close();
    }
  });

  it('exits 1 with the reason on stderr for an unknown role, creating no key', async () => {
    const db = newDb();
    const failure = await keysCreate(['--db', db, '--email', 'ops@example.com', '--role', 'wizard']).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stdout).toBe('');
    expect(failure?.stderr).toMatch(/role: unknown role 'wizard'/);
    const store = openSqliteStore(db);
    try {
      expect((await store.auth.countKeys())).toBe(0);
    } finally {
      store.close();
    }
  });
});

describe('flagops keys (argument errors, in process)', () => {
  const io = (): CliIO & { out: string[]; err: string[] } => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: {}, cwd: dir, isTTY: false, signal: new AbortController().signal };
  };

  it.each([
    ['no --db', ['create', '--email', 'a@example.com', '--role', 'admin'], /--db: is required/],
    ['no --email or --role', ['create', '--db', 'x.db'], /--email: is required[\s\S]*--role: is required/],
    ['an unknown subcommand', ['delete', '--db', 'x.db'], /use 'flagops keys create'/],
    ['no subcommand', [], /use 'flagops keys create'/],
    ['an unknown option', ['create', '--db', 'x.db', '--colour', 'red'], /colour/],
  ])('%s → exit 1, nothing on stdout', async (_what, args, message) => {
    const cli = io();
    expect(await runCli(['keys', ...args], cli, COMMANDS)).toBe(1);
    expect(cli.out).toEqual([]);
    expect(cli.err.join('')).toMatch(message);
  });
});

describe('flagops keys create: key types and limits (in process)', () => {
  const io = (): CliIO & { out: string[]; err: string[] } => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: {}, cwd: dir, isTTY: false, signal: new AbortController().signal };
  };
  const create = async (args: string[]) => {
    const cli = io();
    const code = await runCli(['keys', 'create', ...args], cli, COMMANDS);
    return { code, out: cli.out.join(''), err: cli.err.join('') };
  };
  const keysIn = async (db: string) => {
    const store = openSqliteStore(db);
    try {
      return await store.auth.listKeys();
    } finally {
      await store.close();
    }
  };

  it('creates a console key limited to environments and target apps', async () => {
    const db = newDb();
    const made = await create(['--db', db, '--email', 'dev@example.com', '--role', 'member', '--environments', 'staging, development', '--target-app', 'web', '--secondary-target-apps', 'ios']);
    expect(made.code, made.err).toBe(0);
    expect(made.out).toMatch(/^console-[A-Za-z0-9_-]+\n$/);
    expect(await keysIn(db)).toEqual([
      expect.objectContaining({ type: 'CONSOLE', userEmail: 'dev@example.com', environments: ['staging', 'development'], primaryTargetApp: 'web', secondaryTargetApps: ['ios'] }),
    ]);
  });

  it('creates SDK keys for an existing user, with their own prefixes and no role', async () => {
    const db = newDb();
    expect((await create(['--db', db, '--email', 'ops@example.com', '--role', 'admin'])).code).toBe(0);
    const server = await create(['--db', db, '--email', 'ops@example.com', '--type', 'server', '--environments', 'production']);
    expect(server.code, server.err).toBe(0);
    expect(server.out).toMatch(/^secret-[A-Za-z0-9_-]+\n$/);
    expect(server.err).toMatch(/Created SERVER key key_\w+ for ops@example\.com\.\n/);
    const client = await create(['--db', db, '--email', 'ops@example.com', '--type', 'CLIENT']);
    expect(client.out).toMatch(/^client-/);
    expect((await keysIn(db)).map((k) => [k.type, k.environments])).toEqual([
      ['CONSOLE', []],
      ['SERVER', ['production']],
      ['CLIENT', []],
    ]);
  });

  it.each([
    ['an unknown type', ['--email', 'ops@example.com', '--role', 'admin', '--type', 'scim'], /--type: must be CONSOLE, SERVER or CLIENT/],
    ['a role on an SDK key', ['--email', 'ops@example.com', '--role', 'admin', '--type', 'server'], /--role: only CONSOLE keys have a role/],
    ['an SDK key for an unknown user', ['--email', 'nobody@example.com', '--type', 'server'], /--email: unknown user 'nobody@example\.com'/],
    ['an empty environment', ['--email', 'ops@example.com', '--role', 'admin', '--environments', 'staging,'], /--environments\[1\]: must not be empty/],
    ['secondary apps without a primary one', ['--email', 'ops@example.com', '--role', 'admin', '--secondary-target-apps', 'ios'], /--target-app: is required when secondaryTargetAppIDs lists apps/],
    ['a bad e-mail', ['--email', 'ops', '--role', 'admin'], /--email: must be an e-mail address/],
  ])('%s → exit 1 naming the option, no key created', async (_what, args, message) => {
    const db = newDb();
    const made = await create(['--db', db, ...args]);
    expect(made.code).toBe(1);
    expect(made.out).toBe('');
    expect(made.err).toMatch(message);
    if (existsSync(db)) expect(await keysIn(db)).toEqual([]);
  });
});
