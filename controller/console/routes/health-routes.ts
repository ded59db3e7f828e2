import type { FastifyInstance } from 'fastify';
import { UnavailableError } from '../../errors.js';
import type { Store } from '../../store/ports.js';
import type { ConsoleMetrics } from '../http/console-metrics.js';

export interface HealthRouteDeps {
  store: Pick<Store, 'ping'>;
  /** True once the console started closing: a load balancer must stop sending it requests. */
  isClosing: () => boolean;
  metrics: ConsoleMetrics;
  /** Longest wait for the store's answer before /readyz says not ready. */
  readyTimeoutMs?: number;
}

const DEFAULT_READY_TIMEOUT_MS = 5000;

/**
 * A store failure's message as /readyz may show it: the database's answer, without credentials a
 * driver might echo (the user info of a URL, a `password=` setting).
 */
export function readinessReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, '$1')
    .replace(/(password\s*[=:]\s*)("[^"]*"|'[^']*'|\S+)/gi, '$1***')
    .slice(0, 300);
}

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the database did not answer within ${ms} ms`)), ms);
    timer.unref();
    promise.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * Probes and metrics, none of which needs a key:
 * - `GET /healthz`: the process is up and listening (scripts wait on it before their first API
 *   call); it says nothing about the data and never touches the store;
 * - `GET /readyz`: this replica can serve: the database answers and its schema is this build's, and
 *   the console is not shutting down; else 503 with the reason;
 * - `GET /metrics`: Prometheus text format.
 */
export function registerHealthRoutes(app: FastifyInstance, deps: HealthRouteDeps): void {
  const timeoutMs = deps.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (request) => {
    if (deps.isClosing()) throw new UnavailableError('Not ready: the console is shutting down.');
    try {
      await withTimeout(deps.store.ping(), timeoutMs);
    } catch (error) {
      const reason = readinessReason(error);
      request.log.warn({ reason }, 'not ready');
      throw new UnavailableError(`Not ready: the database is not available (${reason}).`);
    }
    return { status: 'ready' };
  });
  app.get('/metrics', async (_request, reply) => {
    const text = await deps.metrics.registry.metrics();
    return reply.type(deps.metrics.registry.contentType).send(text);
  });
}
