#!/usr/bin/env node
/**
 * Example pre-commit webhook receiver for a flagops console. Copy it and change `decide()`.
 *
 * It receives the console's pre-commit webhook (POST, header x-service-webhook-key), checks the key
 * in constant time, answers 202 at once, then reports progress and its decision through the
 * console's change-validation endpoint. No dependencies beyond Node 20.
 *
 *   WEBHOOK_KEY=...  CONSOLE_API_KEY=...  node receiver.mjs
 *
 * Environment:
 *   WEBHOOK_KEY        the key configured in POST /console/v1/settings/precommit_webhook (required)
 *   CONSOLE_API_KEY    a console key whose role holds validate_changes (required)
 *   CONSOLE_URL        the console, default http://127.0.0.1:8080
 *   HOST, PORT         where to listen, default 127.0.0.1:8787 (PORT=0 picks a free port)
 *   MAX_STEP           largest allowed increase of a rule's pass percentage in one change, default 50
 *   MAX_ALLOCATION     largest allowed allocation of a running experiment, default 100
 */
/* global AbortSignal */
import { Buffer } from 'node:buffer';
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

/**
 * The policy. Returns { validated, message }. This one blocks big jumps in rollout: a rule whose pass
 * percentage rises by more than maxStep points (a new rule counts from 0), and experiment
 * allocations above maxAllocation. Everything else is approved.
 */
export function decide(payload, { maxStep = 50, maxAllocation = 100 } = {}) {
  const name = payload.config_name ?? payload.experiment_name;
  if (payload.config_type === 'experiment') {
    const allocation = payload.new_allocation ?? payload.new_experiment?.allocation;
    if ((payload.type === 'update_allocation' || payload.type === 'start_experiment') && typeof allocation === 'number' && allocation > maxAllocation) {
      return { validated: false, message: `Rejected: allocation ${allocation}% of ${name} is above the ${maxAllocation}% limit.` };
    }
    return { validated: true, message: `Approved: ${payload.type} of experiment ${name}.` };
  }
  const before = new Map((payload.old_config?.rules ?? []).map((rule) => [rule.name, rule.passPercentage ?? 0]));
  for (const rule of payload.new_config?.rules ?? []) {
    const step = (rule.passPercentage ?? 0) - (before.get(rule.name) ?? 0);
    if (step > maxStep) {
      return { validated: false, message: `Rejected: rule '${rule.name}' of ${name} jumps by ${step} points (at most ${maxStep} per change).` };
    }
  }
  return { validated: true, message: `Approved: ${payload.type} change of ${payload.config_type} ${name}.` };
}

/** Constant-time comparison of equal-length digests, so timing reveals nothing about the key. */
export function sameKey(presented, expected) {
  if (typeof presented !== 'string' || expected === '') return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Calls the console's change-validation endpoint, retrying briefly on network errors and 5xx. */
async function tellConsole(config, body) {
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await fetch(`${config.consoleUrl}/console/v1/change_validation`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'SERVICE-API-KEY': config.consoleApiKey },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      if (response.ok || response.status < 500) {
        const text = await response.text();
        if (!response.ok) config.log(`console refused ${body.reviewID}: HTTP ${response.status} ${text}`);
        return response.ok;
      }
      config.log(`console answered HTTP ${response.status} for ${body.reviewID} (attempt ${attempt})`);
    } catch (error) {
      config.log(`could not reach the console for ${body.reviewID} (attempt ${attempt}): ${error.message}`);
    }
    if (attempt >= 5) return false;
    await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt));
  }
}

/** Starts the receiver; resolves with { url, close } once it listens. */
export function startReceiver(config) {
  const seen = new Set();
  const server = createServer((request, response) => {
    if (request.method !== 'POST') {
      response.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      if (!sameKey(request.headers['x-service-webhook-key'], config.webhookKey)) {
        response.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"invalid webhook key"}');
        return;
      }
      let payload;
      try {
        payload = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        payload = undefined;
      }
      if (typeof payload?.review_id !== 'string') {
        response.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"not a pre-commit webhook payload"}');
        return;
      }
      // Answer at once: the decision goes through change_validation, within the console's window.
      response.writeHead(202, { 'content-type': 'application/json' }).end('{"message":"received"}');
      // The console redelivers until it gets a 2xx; decide each review once.
      if (seen.has(payload.review_id)) return;
      seen.add(payload.review_id);
      void (async () => {
        await tellConsole(config, { reviewID: payload.review_id, message: `Checking ${payload.type} change submitted by ${payload.submitter}…` });
        const verdict = decide(payload, config);
        const ok = await tellConsole(config, { reviewID: payload.review_id, validated: verdict.validated, message: verdict.message });
        config.log(`${payload.review_id}: ${verdict.validated ? 'approved' : 'rejected'}${ok ? '' : ' (not delivered)'}: ${verdict.message}`);
        if (!ok) seen.delete(payload.review_id);
      })();
    });
  });
  return new Promise((resolve) => {
    server.listen(config.port, config.host, () => {
      const { port } = server.address();
      resolve({
        url: `http://${config.host}:${port}/`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

function configFromEnv(env) {
  const missing = ['WEBHOOK_KEY', 'CONSOLE_API_KEY'].filter((name) => !env[name]);
  if (missing.length > 0) throw new Error(`set ${missing.join(' and ')}`);
  return {
    webhookKey: env.WEBHOOK_KEY,
    consoleApiKey: env.CONSOLE_API_KEY,
    consoleUrl: (env.CONSOLE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, ''),
    host: env.HOST ?? '127.0.0.1',
    port: Number(env.PORT ?? 8787),
    maxStep: Number(env.MAX_STEP ?? 50),
    maxAllocation: Number(env.MAX_ALLOCATION ?? 100),
    log: (line) => process.stderr.write(`${line}\n`),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const config = configFromEnv(process.env);
    const { url, close } = await startReceiver(config);
    process.stdout.write(`webhook receiver listening on ${url}\n`);
    const stop = () => void close().then(() => process.exit(0));
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  } catch (error) {
    process.stderr.write(`webhook receiver: ${error.message}\n`);
    process.exit(1);
  }
}
