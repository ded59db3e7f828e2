import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * Client routes of the web console: each answers with the page, which then shows the route. Listed
 * one by one rather than a catch-all, so every other path (the API, /openapi.json, /healthz, a
 * typo) keeps its own answer and 404.
 */
export const WEB_PAGE_ROUTES = ['/', '/docs', '/audit', '/entities/*', '/reviews', '/reviews/*', '/admin', '/admin/*'] as const;

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
};

/**
 * The page talks only to this origin; scripts and styles come from the bundle. The favicon is a
 * data: URL.
 */
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/** dist/web of the package this file belongs to, whether it runs compiled (dist/) or from source. */
export function defaultWebRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return join(dir, 'dist', 'web');
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>flagops console: not built</title></head>
<body><main><h1>The web console is not built</h1>
<p>This flagops was installed without its web bundle. Run <code>npm run build</code> in the flagops folder, then reload this page.</p>
<p>The API works without it: <a href="/openapi.json">/openapi.json</a> describes <code>/console/v1</code>.</p></main></body></html>
`;

function secure(reply: FastifyReply): FastifyReply {
  return reply.header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer').header('x-frame-options', 'DENY');
}

/** Serves the built web console (dist/web) at `/`: the page for its client routes and its hashed assets. */
export function registerWebRoutes(app: FastifyInstance, options: { root?: string } = {}): void {
  const root = resolve(options.root ?? defaultWebRoot());
  const assets = join(root, 'assets');

  const page = async (_request: unknown, reply: FastifyReply): Promise<FastifyReply> => {
    secure(reply).header('cache-control', 'no-cache');
    let html: string;
    try {
      html = await readFile(join(root, 'index.html'), 'utf8');
    } catch {
      return reply.code(503).type('text/html; charset=utf-8').send(NOT_BUILT);
    }
    return reply.type('text/html; charset=utf-8').header('content-security-policy', CSP).send(html);
  };
  for (const url of WEB_PAGE_ROUTES) app.get(url, page);

  app.get('/assets/*', async (request, reply) => {
    const name = (request.params as Record<string, string>)['*'] ?? '';
    const file = resolve(assets, name);
    // Only files inside assets/: `..` and absolute names resolve elsewhere and are not served.
    if (!file.startsWith(assets + sep) || !(extname(file) in TYPES)) return reply.callNotFound();
    let body: Buffer;
    try {
      body = await readFile(file);
    } catch {
      return reply.callNotFound();
    }
    // File names carry a content hash: a changed file is a new name.
    return secure(reply).type(TYPES[extname(file)]!).header('cache-control', 'public, max-age=31536000, immutable').send(body);
  });
}
