import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startRecordingProxy, type RecordingProxy } from './recording-proxy.js';

export const BIN = fileURLToPath(new URL('../../bin/flagops.js', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface StartedCli {
  child: ChildProcess;
  /** Resolves when the process exits, with everything it printed. */
  done: Promise<CliRun>;
  /** What it has printed on stderr so far. */
  stderr: () => string;
}

/** Starts the compiled CLI with `env` over this process's environment (undefined removes a variable). */
export function startBuiltCli(args: string[], options: { env?: Record<string, string | undefined>; cwd?: string } = {}): StartedCli {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<CliRun>((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
  return { child, done, stderr: () => stderr };
}

/** Runs the compiled CLI to its end with `env` over this process's environment. */
export function runBuiltCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return startBuiltCli(args, { env }).done;
}

export interface SpawnedConsole {
  url: string;
  /** The bootstrap key the console was started with ('' with `withoutBootstrapKey`). */
  key: string;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /**
   * Sends SIGTERM and resolves with the exit code. With `checkResponses`, first checks every response
   * the console sent against its /openapi.json, and rejects naming those it does not describe.
   */
  stop(): Promise<number | null>;
}

/**
 * A JSON call of a spawned console's API as `key` (its bootstrap key by default); the answer's body
 * read loosely, as tests read it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely
export async function callConsole(console_: SpawnedConsole, method: string, path: string, body?: unknown, key = console_.key): Promise<{ status: number; body: any }> {
  const res = await fetch(`${console_.url}${path}`, {
    method,
    headers: { 'SERVICE-API-KEY': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/**
 * Starts `flagops serve --port 0` as a child process (the compiled CLI: `npm run build` first, which
 * `npm test` does) and resolves once it prints its ready line.
 */
export async function spawnConsole(options: SpawnOptions): Promise<SpawnedConsole> {
  const spawned = await spawnBare(options);
  if (options.checkResponses !== true) return spawned;
  const proxy: RecordingProxy = await startRecordingProxy(spawned.url);
  return {
    ...spawned,
    url: proxy.url,
    stop: async () => {
      const violations = spawned.child.exitCode === null ? await proxy.violations() : [];
      const code = await spawned.stop();
      await proxy.close();
      if (violations.length > 0) throw new Error(`Responses that /openapi.json does not describe:\n${violations.join('\n')}`);
      return code;
    },
  };
}

export interface SpawnOptions {
  db: string;
  key?: string;
  withoutBootstrapKey?: boolean;
  args?: string[];
  env?: Record<string, string>;
  /** Clients reach the console through a recording proxy (url), and stop() checks what it sent against /openapi.json. */
  checkResponses?: boolean;
}

function spawnBare(options: SpawnOptions): Promise<SpawnedConsole> {
  const key = options.withoutBootstrapKey ? '' : (options.key ?? 'console-e2e-admin-key');
  const env: Record<string, string | undefined> = { ...process.env, ...options.env, FLAGOPS_BOOTSTRAP_KEY: key };
  if (options.withoutBootstrapKey) delete env['FLAGOPS_BOOTSTRAP_KEY'];
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', options.db, ...(options.args ?? [])], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`console did not start in 15 s:\n${err}`)), 15_000);
    child.once('exit', (code) => reject(new Error(`console exited with ${code}:\n${err}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /flagops console listening on (http:\/\/\S+)/.exec(out);
      if (!match?.[1]) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({
        url: match[1],
        key,
        child,
        stdout: () => out,
        stderr: () => err,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done(child.exitCode);
            child.once('exit', (code) => done(code));
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
