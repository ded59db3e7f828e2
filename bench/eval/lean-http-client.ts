import { connect, type Socket } from 'node:net';

/** What a `LeanHttpClient` request got back. */
export interface LeanResponse {
  status: number;
  /** Bytes of the body (it is counted, not kept). */
  bodyBytes: number;
}

const HEADER_END = '\r\n\r\n';
/** The most of a read turned into text while looking for the end of the head. */
const HEAD_BYTES = 16 * 1024;

/**
 * A minimal HTTP/1.1 client for timing a server's answers: one kept-alive connection, one request
 * at a time, every read into the same buffer and the body counted, not kept. Node's HTTP client
 * allocates a Buffer per chunk read; with answers of ~110 KB that external memory makes the client's
 * own heap run mark-compacts every few dozen requests (4–10 ms pauses), which a latency measured on
 * the client counts as the server's. Answers must carry a Content-Length (no chunked encoding).
 */
export class LeanHttpClient {
  private socket: Socket | undefined;
  private head = '';
  private status = 0;
  private remaining = -1;
  private bodyBytes = 0;
  private pending: { resolve: (response: LeanResponse) => void; reject: (error: Error) => void } | undefined;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  /** Sends `request` (a whole HTTP/1.1 request: head and body) and resolves when its answer has been read. */
  send(request: string): Promise<LeanResponse> {
    if (this.pending) return Promise.reject(new Error('LeanHttpClient sends one request at a time'));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.head = '';
      this.remaining = -1;
      this.bodyBytes = 0;
      this.connection().write(request);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private connection(): Socket {
    if (this.socket && !this.socket.destroyed) return this.socket;
    const buffer = Buffer.allocUnsafe(256 * 1024);
    const socket = connect({
      host: this.host,
      port: this.port,
      noDelay: true,
      onread: {
        buffer,
        callback: (nread) => {
          this.read(buffer, nread);
          return true;
        },
      },
    });
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('the server closed the connection')));
    this.socket = socket;
    return socket;
  }

  private read(buffer: Buffer, nread: number): void {
    let offset = 0;
    if (this.remaining < 0) {
      // The head is small and nearly always in the first read; it is the only part turned into text.
      const before = this.head.length;
      // Only the start of a read: the first one usually holds the whole answer, and its text would be
      // a string of the body's size (past 128 KB, a large object to V8) on every request.
      this.head += buffer.toString('latin1', 0, Math.min(nread, HEAD_BYTES));
      const end = this.head.indexOf(HEADER_END);
      if (end < 0) return nread > HEAD_BYTES ? this.fail(new Error(`the answer's head is longer than ${HEAD_BYTES} bytes`)) : undefined;
      const match = /^HTTP\/1\.1 (\d{3})/.exec(this.head);
      const length = /\r\ncontent-length: *(\d+)/i.exec(this.head.slice(0, end));
      if (!match || !length) return this.fail(new Error(`unexpected answer head: ${JSON.stringify(this.head.slice(0, end))}`));
      this.status = Number(match[1]);
      this.remaining = Number(length[1]);
      offset = end + HEADER_END.length - before;
    }
    const body = nread - offset;
    this.bodyBytes += body;
    this.remaining -= body;
    if (this.remaining > 0) return;
    if (this.remaining < 0) return this.fail(new Error('the server sent more than its Content-Length'));
    const pending = this.pending;
    this.pending = undefined;
    pending?.resolve({ status: this.status, bodyBytes: this.bodyBytes });
  }

  private fail(error: Error): void {
    const pending = this.pending;
    this.pending = undefined;
    this.socket?.destroy();
    this.socket = undefined;
    pending?.reject(error);
  }
}
