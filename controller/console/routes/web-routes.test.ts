import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestConsole } from '../../test-support/test-console.js';
import { registerWebRoutes } from './web-routes.js';

const root = mkdtempSync(join(tmpdir(), 'flagops-web-root-'));
mkdirSync(join(root, 'assets'));
writeFileSync(join(root, 'index.html'), '<!doctype html><title>flagops console</title><script type="module" src="/assets/app-abc.js"></script>');
writeFileSync(join(root, 'assets', 'app-abc.js'), 'console.log("hi")');
writeFileSync(join(root, 'secret.txt'), 'not an asset');

afterAll(() => rmSync(root, { recursive: true, force: true }));

function webApp(dir: string) {
  const app = Fastify();
  registerWebRoutes(app, { root: dir });
  return app;
}

describe('web routes', () => {
  it('answers every client route with the page, under a content security policy', async () => {
    const app = webApp(root);
    for (const url of ['/', '/entities/gates', '/entities/gates/checkout', '/entities/gates/checkout/edit', '/reviews', '/reviews/rev_1', '/audit', '/admin', '/admin/keys', '/docs']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toContain('<title>flagops console</title>');
    }
  });

  it('serves hashed assets with a long cache life, and nothing outside assets/', async () => {
    const app = webApp(root);
    const asset = await app.inject({ url: '/assets/app-abc.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['cache-control']).toContain('immutable');
    for (const url of ['/assets/../secret.txt', '/assets/%2e%2e/secret.txt', '/assets/..%2fsecret.txt', '/assets/missing.js', '/assets/']) {
      expect((await app.inject({ url })).statusCode, url).toBe(404);
    }
  });

  it('says to run npm run build when the page is not built, instead of failing', async () => {
    const app = webApp(join(root, 'not-built'));
    const res = await app.inject({ url: '/' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('npm run build');
  });

  it('leaves the API, the OpenAPI document and the health routes as they were', async () => {
    const c = createTestConsole();
    try {
      expect((await c.call('GET', '/console/v1/whoami')).json()).toMatchObject({ data: { role: 'admin' } });
      const noKey = await c.app.inject({ url: '/console/v1/gates' });
      expect(noKey.statusCode).toBe(401);
      expect((await c.app.inject({ url: '/console/v1/no_such_route' })).statusCode).not.toBe(200);
      expect((await c.app.inject({ url: '/openapi.json' })).json()).toMatchObject({ openapi: '3.1.0' });
      expect((await c.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
      const unknown = await c.app.inject({ url: '/no/such/page' });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ status: 404 });
    } finally {
      await c.close();
    }
  });
});
