import type { Socket } from 'node:net';
import pg from 'pg';

/** Values of the one row a statement answers, as text (null for SQL NULL). */
export type TextRow = (string | null)[];

interface Pending {
  resolve: (row: TextRow | undefined) => void;
  reject: (error: Error) => void;
  row?: TextRow;
  error?: Error;
}

const SYNC = Buffer.from([0x53, 0, 0, 0, 4]);

function message(type: string, body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(5 + body.length);
  out.write(type, 0, 'latin1');
  out.writeInt32BE(4 + body.length, 1);
  body.copy(out, 5);
  return out;
}

const cstring = (text: string): Buffer => Buffer.from(`${text}\0`, 'utf8');

/** The text of an ErrorResponse's message field ('M'). */
function errorText(body: Buffer): string {
  let at = 0;
  while (at < body.length && body[at] !== 0) {
    const end = body.indexOf(0, at + 1);
    if (body[at] === 0x4d) return body.toString('utf8', at + 1, end);
    at = end + 1;
  }
  return 'PostgreSQL error';
}

/**
 * One dedicated connection that runs one prepared statement without parameters, any number of times,
 * pipelined: each run is sent at once, whether or not earlier runs have answered, and the server
 * answers them in order. node-postgres connects and authenticates (every auth method and TLS it
 * supports); then this class speaks the extended query protocol on the socket itself — Bind, Execute,
 * Sync per run, about a quarter of the client CPU of node-postgres' `client.query()` — because the
 * statement runs on nearly every request of a replica (the change-marks check). The gain and the tests
 * of its failure modes: docs/internals-fast-paths.md.
 */
export class PgPipelinedStatement {
  private readonly queue: Pending[] = [];
  private buffered: Buffer | undefined;
  private failure: Error | undefined;
  private readonly run: Buffer;
  /** Settles when the server has prepared the statement (or refused it). */
  private readonly prepareSent: Promise<TextRow | undefined>;

  private constructor(
    private readonly socket: Socket,
    name: string,
    text: string,
  ) {
    const bind = message('B', Buffer.concat([cstring(''), cstring(name), Buffer.from([0, 0, 0, 0, 0, 0])]));
    const execute = message('E', Buffer.concat([cstring(''), Buffer.from([0, 0, 0, 0])]));
    this.run = Buffer.concat([bind, execute, SYNC]);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (error) => this.fail(error));
    socket.on('end', () => this.fail(new Error('The connection to PostgreSQL was closed')));
    socket.on('close', () => this.fail(new Error('The connection to PostgreSQL was closed')));
    this.prepareSent = this.send(Buffer.concat([message('P', Buffer.concat([cstring(name), cstring(text), Buffer.from([0, 0])])), SYNC]));
  }

  /** Connects with `config`, prepares `text` as `name`, and resolves once the server accepted it. */
  static async open(config: pg.ClientConfig, name: string, text: string): Promise<PgPipelinedStatement> {
    const client = new pg.Client(config);
    // Until the socket is taken over, a connection failure may also be emitted: unhandled, it would end the process.
    client.on('error', () => undefined);
    await client.connect();
    // Take the socket over from node-postgres: after authentication it never reads or writes it again.
    const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
    for (const event of ['data', 'end', 'close', 'error']) socket.removeAllListeners(event);
    const statement = new PgPipelinedStatement(socket, name, text);
    try {
      await statement.prepareSent;
    } catch (error) {
      statement.close();
      throw error;
    }
    return statement;
  }

  /** True until the connection fails or is closed; a broken statement rejects every run. */
  get usable(): boolean {
    return this.failure === undefined;
  }

  /** Runs the statement: resolves with its first row. */
  query(): Promise<TextRow | undefined> {
    return this.send(this.run);
  }

  close(): void {
    this.fail(new Error('The statement was closed'));
  }

  private send(bytes: Buffer): Promise<TextRow | undefined> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ resolve, reject });
      this.socket.write(bytes);
    });
  }

  private receive(chunk: Buffer): void {
    let data = this.buffered ? Buffer.concat([this.buffered, chunk]) : chunk;
    let at = 0;
    while (data.length - at >= 5) {
      const length = data.readInt32BE(at + 1);
      if (data.length - at < 1 + length) break;
      this.handle(data[at]!, data.subarray(at + 5, at + 1 + length));
      at += 1 + length;
    }
    data = data.subarray(at);
    this.buffered = data.length > 0 ? Buffer.from(data) : undefined;
  }

  private handle(type: number, body: Buffer): void {
    const head = this.queue[0];
    switch (type) {
      case 0x44: {
        // DataRow: the first row of the run at the head of the queue.
        if (!head || head.row) return;
        const count = body.readInt16BE(0);
        const row: TextRow = [];
        let at = 2;
        for (let i = 0; i < count; i++) {
          const length = body.readInt32BE(at);
          at += 4;
          row.push(length < 0 ? null : body.toString('utf8', at, at + length));
          if (length > 0) at += length;
        }
        head.row = row;
        return;
      }
      case 0x45:
        // ErrorResponse: the server skips to the run's Sync, and answers ReadyForQuery there.
        if (head) head.error = new Error(errorText(body));
        return;
      case 0x5a: {
        // ReadyForQuery: the run at the head is complete.
        const done = this.queue.shift();
        if (!done) return;
        if (done.error) done.reject(done.error);
        else done.resolve(done.row);
        return;
      }
      default:
        // ParseComplete, BindComplete, CommandComplete, notices, parameter status: nothing to do.
        return;
    }
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    for (const pending of this.queue.splice(0)) pending.reject(error);
    if (!this.socket.destroyed) {
      // Terminate, then close: the server ends the session at once.
      this.socket.end(Buffer.from([0x58, 0, 0, 0, 4]));
    }
  }
}
