import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  url: string;
  /** Requests each backend answered, by backend URL. */
  served: Map<string, number>;
  close(): Promise<void>;
}

/**
 * A load balancer for tests: each request goes to the next backend in turn, so consecutive requests
 * of one client land on different replicas. A backend that refuses the connection (it died) is
 * skipped, as a load balancer's health check would; a request cut off mid-way gets a 502.
 */
export function startRoundRobinProxy(backends: string[]): Promise<RoundRobinProxy> {
  const served = new Map(backends.map((b) => [b, 0]));
  let next = 0;

  const forward = (req: IncomingMessage, body: Buffer, res: ServerResponse, tries: number): void => {
    const backend = backends[next++ % backends.length]!;
    const target = new URL(req.url ?? '/', backend);
    const upstream = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      served.set(backend, (served.get(backend) ?? 0) + 1);
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED' && tries < backends.length) return forward(req, body, res, tries + 1);
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 502, message: `proxy: ${error.code ?? error.message}` }));
    });
    upstream.end(body);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => forward(req, Buffer.concat(chunks), res, 1));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        served,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
