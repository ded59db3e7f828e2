import type { FastifyInstance } from 'fastify';

/**
 * `GET /healthz`: the readiness signal scripts wait on before their first API call
 * (`until curl -sf http://127.0.0.1:8080/healthz; do sleep 0.2; done`). It needs no key: it answers
 * only once the server listens, and says nothing about the data.
 */
export function registerHealthRoutes(app: FastifyInstance): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
}
