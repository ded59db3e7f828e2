import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * CPU time (ms) of a process from /proc (Linux; clock ticks of 10 ms), or undefined elsewhere. Wall
 * clock rates suffer when the machine is busy; CPU per change does much less.
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

export interface Server {
  url: string;
  child: ChildProcess;
}

/**
 * Servers the benchmarks start in child processes, so load generator and server don't share a core;
 * `stopAll` ends them (SIGTERM) and waits.
 */
export class ChildProcesses {
  private readonly children: ChildProcess[] = [];

  constructor(private readonly cwd: string) {}

  /** Spawns `node ...args` and resolves with the URL its stdout's first match of `ready` captures. */
  start(args: string[], env: Record<string, string>, ready: RegExp): Promise<Server> {
    const child = spawn(process.execPath, args, { cwd: this.cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.push(child);
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    return new Promise((resolve, reject) => {
      let out = '';
      child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${err}`)));
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = ready.exec(out);
        if (!match?.[1]) return;
        child.removeAllListeners('exit');
        resolve({ url: match[1], child });
      });
    });
  }

  /** Ends one server (SIGTERM) and waits for it. */
  async stop(server: Server): Promise<void> {
    const at = this.children.indexOf(server.child);
    if (at >= 0) this.children.splice(at, 1);
    await ended(server.child);
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.children.splice(0).map(ended));
  }
}

/** Sends SIGTERM unless the process has ended, and resolves once it has. */
function ended(child: ChildProcess): Promise<void> {
  return new Promise<void>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}
