import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenApiConformance, type RecordedResponse } from './openapi-conformance.js';

export interface RecordingProxy {
  /** Where clients send their requests instead of the console. */
  url: string;
  responses: RecordedResponse[];
  /** Checks every recorded response against the console's /openapi.json (the console must still run). */
  violations(): Promise<string[]>;
  close(): Promise<void>;
}

/** The document path a request path matches, literal segments preferred over parameters. */
function routeOf(paths: readonly string[], url: string): string | undefined {
  const segments = (url.split('?')[0] ?? '').split('/');
  let best: { path: string; literals: number } | undefined;
  for (const path of paths) {
    const parts = path.split('/');
    if (parts.length !== segments.length) continue;
    let literals = 0;
    const matches = parts.every((part, i) => {
      if (/^\{[A-Za-z]+\}$/.test(part)) return segments[i] !== '';
      literals++;
      return part === segments[i];
    });
    if (matches && (best === undefined || literals > best.literals)) best = { path, literals };
  }
  return best?.path;
}

/**
 * An HTTP proxy in front of a console child process that records every response it relays, so the
 * end-to-end suites — the CLI, the reconciler and the bridge as real clients — are checked against
 * the console's own /openapi.json like the route suites.
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const responses: RecordedResponse[] = [];
  const pending: { method: string; url: string; status: number; contentType: string | undefined; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    const upstream = httpRequest(`${target}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        res.write(chunk);
      });
      answer.on('end', () => {
        res.end();
        const header = answer.headers['content-type'];
        pending.push({ method: req.method ?? 'GET', url: req.url ?? '/', status: answer.statusCode ?? 0, contentType: header, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    responses,
    async violations() {
      const document = (await (await fetch(`${target}/openapi.json`)).json()) as Record<string, unknown>;
      const conformance = new OpenApiConformance(document);
      const paths = Object.keys((document['paths'] ?? {}) as Record<string, unknown>);
      // A path no document route matches is the router's 404; anything else it answered is undocumented.
      responses.push(...pending.splice(0).map((r) => ({ ...r, route: routeOf(paths, r.url) ?? (r.status === 404 ? undefined : r.url.split('?')[0]) })));
      return [...new Set(responses.map((r) => conformance.violation(r)).filter((v): v is string => v !== undefined))];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
