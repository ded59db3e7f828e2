import { timingSafeEqual, createHash } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { PrecommitPayloadSchema } from '../../schemas/precommit-payload.js';
import { escapeControl } from '../core/escape-control.js';
import { parseWith } from '../core/zod-errors.js';
import type { BridgeService } from './bridge-service.js';


/** Equal-length digests so the comparison takes the same time whatever the presented key. */
function sameKey(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * The bridge's HTTP side: `POST /webhook` receives the console's pre-commit webhook, answers at once
 * (202) and decides in the background through the change-validation endpoint.
 */
export function buildBridgeApp(deps: { service: BridgeService; webhookKey: string; logger?: FastifyServerOptions['logger'] }): FastifyInstance {
  const app = Fastify({ logger: deps.logger ?? false, bodyLimit: 4 * 1024 * 1024 });
  // The key is checked before the body is read: a sender without it cannot make the bridge parse
  // megabytes of JSON.
  const onRequest = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const header = request.headers['x-service-webhook-key'];
    const presented = Array.isArray(header) ? header[0] : header;
    if (presented === undefined || !sameKey(presented, deps.webhookKey)) {
      void reply.status(401).send({ status: 401, message: 'Invalid or missing x-service-webhook-key.' });
      return;
    }
    done();
  };
  app.post('/webhook', { onRequest }, async (request, reply) => {
    const parsed = parseWith(PrecommitPayloadSchema, request.body);
    if (!parsed.ok) return reply.status(400).send({ status: 400, message: 'Invalid pre-commit webhook payload.', errors: parsed.errors });
    const payload = parsed.value;
    // The review id comes from the sender: escaped, as every text the bridge prints (JSON logs leave bidi and C1 characters raw).
    void deps.service.handle(payload).catch((error: unknown) => request.log.error({ err: error, review: escapeControl(payload.review_id) }, 'bridge decision failed'));
    return reply.status(202).send({ message: 'Received; the decision follows through change_validation.', reviewID: payload.review_id });
  });
  // The readiness signal scripts wait on, as the console's.
  app.get('/healthz', async () => ({ status: 'ok' }));
  return app;
}
