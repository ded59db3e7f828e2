/**
 * Baseline for bench:api: a bare Fastify app whose one route answers a fixed JSON body (the same
 * bytes the console returns for a gate), so the ratio measures the console's own work per request.
 *
 *   node --import tsx bench/bare-server.ts <payload.json>
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const payload = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as unknown;
const app = Fastify({ logger: false });
app.get('/bare', async () => payload);
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`bare fastify listening on ${address}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
