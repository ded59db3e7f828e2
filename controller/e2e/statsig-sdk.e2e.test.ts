/**
 * The unmodified `statsig-node` SDK against a real `flagops serve` (the compiled CLI: `npm run build`
 * first) holding examples/config-repo: pointed with `api: "<console>/v1"`, in network mode, it
 * downloads the compiled specs, evaluates every kind of entity, picks up a change committed through
 * a review within its sync interval, and posts its exposures to the console. A network override
 * refuses (and records) any request that would leave the machine.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StatsigServer, type StatsigUser } from 'statsig-node';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callConsole, spawnConsole, type SpawnedConsole } from '../test-support/spawn-console.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely
type Json = any;

const REPO = fileURLToPath(new URL('../../examples/config-repo/', import.meta.url));
/** Folders in the order their entities can be created (what others name first). */
const FOLDERS = ['segments', 'gates', 'dynamic_configs', 'layers', 'assignment_sources', 'experiments', 'holdouts'] as const;
/** Where the API keeps a folder's kind, where it differs from the folder. */
const API_PATHS: Record<string, string> = { assignment_sources: 'experiments/assignment_sources' };
const SYNC_MS = 5000;

let dir: string;
let server: SpawnedConsole;
let sdk: StatsigServer;
let bob: string;
let carol: string;
/** The SERVER key the SDK uses (production), also the OFREP comparison's. */
let serverKey: string;
const offMachine: string[] = [];

const api = (method: string, path: string, body?: unknown, key = server.key): Promise<{ status: number; body: Json }> => callConsole(server, method, path, body, key);

async function newKey(body: Record<string, unknown>): Promise<string> {
  const res = await api('POST', '/console/v1/keys', { description: 'e2e', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.key as string;
}

/** Only loopback: anything else the SDK tries (its CDN, its exception endpoint) is recorded and refused. */
const loopbackOnly = (url: string, init: RequestInit): Promise<Response> => {
  const host = new URL(url).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') {
    offMachine.push(url);
    return Promise.reject(new Error(`refused off-machine request to ${url}`));
  }
  return fetch(url, init);
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flagops-statsig-e2e-'));
  server = await spawnConsole({ db: join(dir, 'console.db') });
  for (const folder of FOLDERS) {
    for (const file of readdirSync(join(REPO, folder)).sort()) {
      const res = await api('POST', `/console/v1/${API_PATHS[folder] ?? folder}`, parse(readFileSync(join(REPO, folder, file), 'utf8')));
      expect(res.status, `${folder}/${file}: ${JSON.stringify(res.body)}`).toBe(201);
    }
  }
  for (const file of readdirSync(join(REPO, 'experiments'))) {
    const id = file.replace(/\.yaml$/, '');
    expect((await api('PUT', `/console/v1/experiments/${id}/start`)).status).toBe(200);
  }
  bob = await newKey({ userEmail: 'bob@acme.example', role: 'member' });
  carol = await newKey({ userEmail: 'carol@acme.example', role: 'member' });
  serverKey = await newKey({ type: 'SERVER', environments: ['production'] });
  sdk = new StatsigServer(serverKey, {
    api: `${server.url}/v1`,
    localMode: false,
    rulesetsSyncIntervalMs: SYNC_MS,
    initStrategyForIP3Country: 'none',
    networkOverrideFunc: loopbackOnly as never,
  });
  const init = await sdk.initializeAsync();
  expect(init.success, String(init.error)).toBe(true);
}, 120_000);

afterAll(async () => {
  await sdk?.shutdownAsync();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** 1,000 shoppers: every 10th on staff, every 3rd in Germany, half on app 5.3, every 4th a big spender. */
const shoppers = (): StatsigUser[] =>
  Array.from({ length: 1000 }, (_, i) => ({
    userID: `shopper_${i}`,
    email: i % 10 === 0 ? `staff${i}@acme.example` : `shopper${i}@mail.example`,
    country: i % 3 === 0 ? 'DE' : 'US',
    appVersion: i % 2 === 0 ? '5.3.0' : '5.0.0',
    custom: { lifetime_value_eur: i % 4 === 0 ? 2000 : 10 },
  }));
const isStaff = (u: StatsigUser): boolean => String(u.email).endsWith('@acme.example');
const share = (n: number, of: number): number => (of === 0 ? 0 : n / of);

describe('statsig-node against flagops serve', () => {
  it('evaluates the gates of examples/config-repo', () => {
    let rolledOut = 0;
    let eligible = 0;
    let held = 0;
    for (const u of shoppers()) {
      expect(sdk.checkGateSync(u, 'dark_mode')).toBe(true);
      expect(sdk.checkGateSync(u, 'maintenance_banner')).toBe(false);
      expect(sdk.checkGateSync(u, 'kill_switch_payments')).toBe(false);
      // EU customers, as long as the payments kill switch is off.
      expect(sdk.checkGateSync(u, 'express_shipping')).toBe(u.country === 'DE');
      // The staging rule of search_v2 is not for this production key.
      expect(sdk.checkGateSync(u, 'search_v2')).toBe(isStaff(u));
      if ((u.custom?.['lifetime_value_eur'] as number) < 1000) expect(sdk.checkGateSync(u, 'recommendations_widget')).toBe(false);
      const heldOut = sdk.checkGateSync(u, 'holdout:global_holdout_2026');
      const passes = sdk.checkGateSync(u, 'new_checkout');
      if (heldOut) {
        held++;
        expect(passes).toBe(false);
      } else if (isStaff(u)) expect(passes).toBe(true);
      else {
        eligible++;
        if (passes) rolledOut++;
      }
    }
    expect(share(rolledOut, eligible)).toBeGreaterThan(0.15);
    expect(share(rolledOut, eligible)).toBeLessThan(0.25);
    expect(held).toBeLessThan(60);
    expect(sdk.checkGateSync({ userID: 'user_1002' }, 'new_checkout')).toBe(!sdk.checkGateSync({ userID: 'user_1002' }, 'holdout:global_holdout_2026'));
  });

  it('evaluates dynamic configs, experiments and layers', () => {
    const groups = new Map<string, number>();
    for (const u of shoppers()) {
      const pricing = sdk.getConfigSync(u, 'pricing');
      expect(pricing.get('currency', '')).toBe(u.country === 'US' ? 'USD' : 'EUR');
      const ranking = sdk.getExperimentSync(u, 'search_ranking_test');
      const group = ranking.getGroupName();
      if (!isStaff(u)) {
        expect(group).not.toBeNull();
        groups.set(String(group), (groups.get(String(group)) ?? 0) + 1);
      }
      expect(sdk.getLayerSync(u, 'search_layer').get('ranking_model', '')).toBe(ranking.get('ranking_model', 'bm25'));
      // Targeted by express_shipping: only customers in Germany are in it.
      expect(sdk.getExperimentSync(u, 'free_shipping_threshold').getGroupName() !== null).toBe(u.country === 'DE' && !sdk.checkGateSync(u, 'kill_switch_payments'));
      const colors = sdk.getExperimentSync(u, 'button_color_test').getGroupName() !== null;
      const onePage = sdk.getExperimentSync(u, 'one_page_checkout').getGroupName() !== null;
      expect(colors && onePage).toBe(false);
      if (onePage) expect(u.country).toBe('DE');
      const layer = sdk.getLayerSync(u, 'checkout_layer');
      if (!colors && !onePage) expect([layer.get('button_color', ''), layer.get('one_page', true)]).toEqual(['blue', false]);
    }
    for (const name of ['Control', 'LTR', 'LTR boosted']) expect(share(groups.get(name) ?? 0, 900)).toBeGreaterThan(0.27);
  });

  it("answers every flag for 1,000 users as flagops's own engine does (OFREP, the same key)", async () => {
    let compared = 0;
    const kinds = new Set<string>();
    const mismatches: string[] = [];
    for (const u of shoppers()) {
      const context = { targetingKey: u.userID, email: u.email, country: u.country, appVersion: u.appVersion, ...u.custom };
      const res = await fetch(`${server.url}/ofrep/v1/evaluate/flags`, { method: 'POST', headers: { authorization: `Bearer ${serverKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ context }) });
      expect(res.status).toBe(200);
      const { flags } = (await res.json()) as { flags: { key: string; value?: unknown; errorCode?: string; metadata?: { kind?: string } }[] };
      for (const flag of flags) {
        if (flag.errorCode !== undefined) continue;
        const id = flag.key.replace(/^[a-z_]+\//, '');
        let sdkValue: unknown;
        switch (flag.metadata?.kind) {
          case 'gate':
            sdkValue = sdk.checkGateSync(u, id);
            break;
          case 'dynamic_config':
            sdkValue = sdk.getConfigSync(u, id).value;
            break;
          case 'experiment':
            sdkValue = sdk.getExperimentSync(u, id).value;
            break;
          case 'layer': {
            const layer = sdk.getLayerSync(u, id);
            sdkValue = Object.fromEntries(Object.keys(flag.value as Record<string, unknown>).map((k) => [k, layer.get(k, null)]));
            break;
          }
          default:
            continue;
        }
        compared += 1;
        kinds.add(flag.metadata.kind);
        if (JSON.stringify(sdkValue) !== JSON.stringify(flag.value)) mismatches.push(`${flag.key} for ${u.userID}: SDK ${JSON.stringify(sdkValue)}, flagops ${JSON.stringify(flag.value)}`);
      }
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
    expect([...kinds].sort()).toEqual(['dynamic_config', 'experiment', 'gate', 'layer']);
    expect(compared).toBeGreaterThanOrEqual(1000 * 20);
  }, 120_000);

  it('a change committed through a review reaches the SDK within its sync interval', async () => {
    const user = (): StatsigUser => ({ userID: 'shopper_1' });
    expect(sdk.checkGateSync(user(), 'dark_mode')).toBe(true);
    const path = '/console/v1/gates/dark_mode/reviews';
    const submitted = await api('POST', path, { change: { isEnabled: false } }, bob);
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
    const reviewID = submitted.body.data.reviewID as string;
    expect((await api('PUT', `${path}/${reviewID}/approve`, undefined, carol)).body.data.status).toBe('approved');
    expect((await api('PUT', `${path}/${reviewID}/commit`, undefined, bob)).body.data.status).toBe('committed');
    const committedAt = Date.now();
    while (sdk.checkGateSync(user(), 'dark_mode') && Date.now() - committedAt < 3 * SYNC_MS) await new Promise((r) => setTimeout(r, 100));
    expect(sdk.checkGateSync(user(), 'dark_mode')).toBe(false);
  }, 30_000);

  it("posts its exposures to the console's /v1/log_event, and nothing leaves the machine", async () => {
    await sdk.flush();
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    const exposures = Number(/flagops_sdk_events_total\{kind="gate_exposure"\} (\d+)/.exec(metrics)?.[1] ?? 0);
    expect(exposures).toBeGreaterThan(0);
    expect(offMachine).toEqual([]);
  });
});
