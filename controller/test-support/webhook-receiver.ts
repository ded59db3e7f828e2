import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface TestReceiver {
  /** POST target, e.g. http://127.0.0.1:41234/hook */
  url: string;
  received: ReceivedWebhook[];
  /** Status the receiver answers with from now on (default 200). */
  respondWith(status: number): void;
  /** Runs for every webhook before the answer is sent (e.g. to call change_validation). */
  onWebhook(handler: ((hook: ReceivedWebhook) => void | Promise<void>) | undefined): void;
  /** Resolves with the first received webhook (past or future) matching the predicate. */
  waitFor(predicate: (hook: ReceivedWebhook) => boolean, timeoutMs?: number): Promise<ReceivedWebhook>;
  close(): Promise<void>;
}

/** A pre-commit webhook receiver on 127.0.0.1:0 that records what it gets. For tests and benches. */
export async function startTestReceiver(options: { port?: number } = {}): Promise<TestReceiver> {
  const received: ReceivedWebhook[] = [];
  const waiters: { predicate: (hook: ReceivedWebhook) => boolean; resolve: (hook: ReceivedWebhook) => void }[] = [];
  let status = 200;
  let handler: ((hook: ReceivedWebhook) => void | Promise<void>) | undefined;

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          body = {};
        }
        const hook = { headers: request.headers, body };
        received.push(hook);
        for (const waiter of [...waiters]) {
          if (!waiter.predicate(hook)) continue;
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(hook);
        }
        const answer = status;
        try {
          await handler?.(hook);
        } finally {
          response.writeHead(answer, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: answer < 300 }));
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    respondWith: (next) => {
      status = next;
    },
    onWebhook: (next) => {
      handler = next;
    },
    waitFor: (predicate, timeoutMs = 10_000) => {
      const hit = received.find(predicate);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const waiter = {
          predicate,
          resolve: (hook: ReceivedWebhook) => {
            clearTimeout(timer);
            resolve(hook);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no matching webhook within ${timeoutMs} ms (received ${received.length})`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls until the check returns a value other than undefined, or fails after timeoutMs. */
export async function waitUntil<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
