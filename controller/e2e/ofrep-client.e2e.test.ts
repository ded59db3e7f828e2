import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { OpenFeature, type EvaluationContext } from '@openfeature/server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileConfigSpecs, type CompileSource } from '../core/eval/compile-config-specs.js';
import { SpecEvaluator } from '../core/eval/evaluate-spec.js';
import { evaluateFlag, FlagIndex } from '../core/eval/flag-keys.js';
import { userFromContext } from '../core/eval/ofrep-context.js';
import type { JsonObject } from '../core/repo-entity.js';
import { engineCapabilities } from '../console/evaluation/engine-capabilities.js';
import { runBuiltCli, spawnConsole, type SpawnedConsole } from '../test-support/spawn-console.js';
import { exampleGitRepo } from '../test-support/git-repo.js';

/**
 * The real OpenFeature server SDK with the real OFREP provider, against a real `flagops serve`
 * holding the example repository: every flag, 1,000 users, compared with the engine evaluating
 * the same entities (read back through the Console API) in this process.
 */

const ADMIN = 'console-e2e-ofrep-admin';

let dir: string;
let console_: SpawnedConsole;
let approverKey: string;

async function api(method: string, path: string, body?: unknown, key = ADMIN, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${console_.url}${path}`, { method, headers: { 'service-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flagops-ofrep-'));
  console_ = await spawnConsole({ db: join(dir, 'console.db'), key: ADMIN });
  const repo = join(dir, 'repo');
  await exampleGitRepo(repo);
  const approver = await api('POST', '/console/v1/keys', { description: 'approver', userEmail: 'release-bot@acme.example', role: 'member' });
  approverKey = String((approver.json['data'] as JsonObject)['key']);
  const applied = await runBuiltCli(['apply', repo, '--auto-approve', '--console', console_.url], { FLAGOPS_API_KEY: ADMIN, FLAGOPS_APPROVER_KEY: approverKey });
  expect(applied.code, applied.stderr.slice(0, 3000)).toBe(0);
}, 120_000);

afterAll(async () => {
  await OpenFeature.close();
  await console_?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const FOLDERS = { gates: 'gates', dynamicConfigs: 'dynamic_configs', segments: 'segments', experiments: 'experiments', layers: 'layers', holdouts: 'holdouts' } as const;

async function storedEntities(): Promise<CompileSource> {
  const source: Record<string, JsonObject[]> = {};
  for (const [field, folder] of Object.entries(FOLDERS)) {
    const res = await api('GET', `/console/v1/${folder}?limit=1000`);
    expect(res.status).toBe(200);
    source[field] = res.json['data'] as JsonObject[];
  }
  return source as unknown as CompileSource;
}

const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'NZ', 'JP', undefined];
const EMAILS = ['ann@acme.example', 'bob@other.example', 'carol@gmail.com', undefined];
const VERSIONS = ['1.0.0', '2.3.1', '3.0.0', '10.2', undefined];
const AGENTS = ['Mozilla/5.0 (iPhone; CPU iPhone OS 16_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.5 Mobile/15E148 Safari/604.1', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0', undefined];

function contextFor(i: number): EvaluationContext {
  const ctx: EvaluationContext = { targetingKey: `user-${i}` };
  const put = (k: string, v: string | number | undefined): void => { if (v !== undefined) ctx[k] = v; };
  put('country', COUNTRIES[i % COUNTRIES.length]);
  put('email', EMAILS[(i >> 1) % EMAILS.length]);
  put('appVersion', VERSIONS[(i >> 2) % VERSIONS.length]);
  put('userAgent', AGENTS[(i >> 3) % AGENTS.length]);
  put('ip', i % 5 === 0 ? '81.2.69.142' : undefined);
  put('lifetimeValue', (i * 37) % 2000);
  put('plan', i % 3 === 0 ? 'enterprise' : 'free');
  if (i % 4 === 0) ctx['customIDs'] = { companyID: `company-${i % 13}` };
  return ctx;
}

describe('OpenFeature with the OFREP provider against flagops serve', () => {
  it('evaluates every flag of the example repository for 1,000 users as the engine does', async () => {
    const created = await api('POST', '/console/v1/keys', { description: 'app', type: 'SERVER', environments: ['production'] });
    expect(created.status).toBe(201);
    const serverKey = String((created.json['data'] as JsonObject)['key']);
    await OpenFeature.setProviderAndWait(new OFREPProvider({ baseUrl: console_.url, headers: [['Authorization', `Bearer ${serverKey}`]] }));
    const client = OpenFeature.getClient();

    const specs = compileConfigSpecs(await storedEntities(), { environments: ['production'], targetApps: [], time: 0 });
    const engine = new SpecEvaluator(specs, engineCapabilities());
    const flags = new FlagIndex(specs).all();
    expect(flags.length).toBeGreaterThan(15);

    const mismatches: string[] = [];
    let evaluations = 0;
    const outcomes = new Map<string, Set<string>>();
    for (let i = 0; i < 1000; i++) {
      const ctx = contextFor(i);
      const parsed = userFromContext(ctx);
      if (!('user' in parsed)) throw new Error('bad test context');
      await Promise.all(flags.map(async ({ key, ref }) => {
        const { evaluation, value: expected } = evaluateFlag(engine, ref, parsed.user);
        const details = ref.kind === 'gate'
          ? await client.getBooleanDetails(key, false, ctx)
          : await client.getObjectDetails(key, { fallback: true }, ctx);
        evaluations += 1;
        const got = details.errorCode !== undefined ? `error:${details.errorCode}` : JSON.stringify(details.value);
        const want = evaluation.reason === 'unsupported' ? 'error:GENERAL' : JSON.stringify(expected);
        if (got !== want) mismatches.push(`${key} user-${i}: OFREP ${got}, engine ${want}`);
        const seen = outcomes.get(key) ?? new Set();
        seen.add(got);
        outcomes.set(key, seen);
      }));
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
    expect(evaluations).toBeGreaterThanOrEqual(1000 * flags.length);
    // The users make the flags answer differently: most give more than one answer.
    const varied = [...outcomes.values()].filter((s) => s.size > 1).length;
    expect(varied).toBeGreaterThan(flags.length / 3);
  }, 300_000);

  it('sees a change committed through a review at its next evaluation', async () => {
    const created = await api('POST', '/console/v1/keys', { description: 'app', type: 'CLIENT', environments: ['production'] });
    const key = String((created.json['data'] as JsonObject)['key']);
    await OpenFeature.setProviderAndWait('review', new OFREPProvider({ baseUrl: console_.url, headers: [['Authorization', `Bearer ${key}`]] }));
    const client = OpenFeature.getClient('review');
    const staff = { targetingKey: 'user-1', email: 'ann@acme.example' };
    expect(await client.getBooleanValue('new_checkout', false, staff)).toBe(true);
    // new_checkout requires a review: the write becomes one, approved by its allowed reviewer, then committed.
    const submitted = await api('PUT', '/console/v1/gates/new_checkout/disable', undefined, ADMIN, { 'x-respect-review-settings': 'true' });
    expect(submitted.status).toBe(202);
    const reviewId = String((submitted.json['data'] as JsonObject)['reviewID']);
    expect(await client.getBooleanValue('new_checkout', false, staff)).toBe(true);
    expect((await api('PUT', `/console/v1/gates/new_checkout/reviews/${reviewId}/approve`, undefined, approverKey)).status).toBe(200);
    const committed = await api('PUT', `/console/v1/gates/new_checkout/reviews/${reviewId}/commit`);
    expect(committed.status, JSON.stringify(committed.json)).toBe(200);
    const details = await client.getBooleanDetails('new_checkout', true, staff);
    expect(details).toMatchObject({ value: false, reason: 'DISABLED' });
  }, 60_000);
});
