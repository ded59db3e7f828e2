/**
 * The protocol floor for bench:reviews: a bare Fastify app answering the review flow's five requests
 * on the console's URLs (submit, approve, commit, change_validation, commit again) and sending the one
 * pre-commit webhook, doing only what any server of this protocol must: check the API key, keep the
 * review's status, answer a small JSON body. What the console spends beyond this per reviewed change is
 * its own work (validation, storage, audit, versions).
 *
 *   node --import tsx bench/floor-server.ts <webhook URL> <webhook key> <API key>...
 */
import Fastify from 'fastify';
import { sharedHttpClient } from '../controller/net/http-client.js';

const [webhookUrl = '', webhookKey = '', ...apiKeys] = process.argv.slice(2);
const keys = new Set(apiKeys);
const reviews = new Map<string, { status: string; gate: string; submitter: string }>();
let next = 0;

const app = Fastify({ logger: false });
app.addHook('onRequest', (request, reply, done) => {
  const key = request.headers['service-api-key'];
  if (typeof key !== 'string' || !keys.has(key)) void reply.status(401).send({ status: 401, message: 'Invalid or missing SERVICE-API-KEY.' });
  done();
});
const review = (id: string, status: string) => ({ message: 'ok', data: { reviewID: id, status } });

app.post<{ Params: { id: string } }>('/console/v1/gates/:id/reviews', async (request) => {
  const id = `rev_${++next}`;
  reviews.set(id, { status: 'pending', gate: request.params.id, submitter: String(request.headers['service-api-key']) });
  return review(id, 'pending');
});
app.put<{ Params: { id: string; review: string } }>('/console/v1/gates/:id/reviews/:review/approve', async (request) => {
  const r = reviews.get(request.params.review)!;
  r.status = 'approved';
  return review(request.params.review, r.status);
});
app.put<{ Params: { id: string; review: string } }>('/console/v1/gates/:id/reviews/:review/commit', async (request) => {
  const id = request.params.review;
  const r = reviews.get(id)!;
  if (r.status === 'approved_webhook_validation') {
    r.status = 'committed';
    reviews.delete(id);
    return review(id, 'committed');
  }
  r.status = 'pending_webhook_validation';
  void sharedHttpClient.send({
    method: 'POST',
    url: new URL(webhookUrl),
    headers: { 'content-type': 'application/json', 'x-service-webhook-key': webhookKey },
    body: JSON.stringify({ review_id: id, submitter: r.submitter, committer: r.submitter, config_type: 'gate', config_name: r.gate, type: 'rules' }),
  });
  return review(id, r.status);
});
app.post<{ Body: { reviewID: string; validated?: boolean } }>('/console/v1/change_validation', async (request) => {
  const r = reviews.get(request.body.reviewID)!;
  if (request.body.validated === true) r.status = 'approved_webhook_validation';
  return review(request.body.reviewID, r.status);
});

const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`floor listening on ${address}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
