/**
 * Baseline for bench:eval (OFREP): a bare Fastify app whose one POST route parses a JSON body and answers
 * fixed bytes (the same the console answers), so the ratio measures the console's own work.
 *
 *   node --import tsx bench/bare-post-server.ts <payload-file> [status]
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const payload = readFileSync(process.argv[2] ?? '', 'utf8');
const status = Number(process.argv[3] ?? '200');
const app = Fastify({ logger: false });
app.post('/bare', async (_request, reply) => {
  if (status === 304) return reply.status(304).header('etag', '"bare"').send();
  return reply.status(status).type('application/json; charset=utf-8').send(payload);
});
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`bare fastify listening on ${address}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
