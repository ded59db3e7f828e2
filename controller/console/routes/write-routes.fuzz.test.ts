/**
 * Fuzz suite of every write route the console declares (read from its own OpenAPI document, which is
 * built from the route catalog, so a new route is fuzzed without touching this file): random JSON
 * and mutations of valid bodies — a field dropped or given a wrong type, huge strings, deep nesting,
 * number literals JSON can't hold, unicode, prototype keys — sent through app.inject(). Whatever
 * comes in: never a 5xx, every error in the API's envelope, and a 4xx leaves the store as it was.
 *
 * Bounded: a fixed number of runs. fast-check prints the seed of a failure; FUZZ_SEED=<seed> (and
 * FUZZ_RUNS=<n>) replays it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiErrorSchema } from '../../../schemas/common.js';
import { PERMISSIONS } from '../../../schemas/role.js';
import { SAMPLE_ENTITIES, apiPathOf } from '../../test-support/sample-entities.js';
import { ADMIN_KEY, createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { storeSnapshot } from '../../test-support/validation-table.js';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 1000);
const SEED = process.env['FUZZ_SEED'] === undefined ? undefined : Number(process.env['FUZZ_SEED']);

type Json = Record<string, unknown>;

interface WriteRoute {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI path template: /console/v1/gates/{id}. */
  template: string;
}

/** Placeholders a body carries where its text must hold what JSON.stringify can't write. */
const RAW_LITERALS: Record<string, string> = {
  '"@@1e309@@"': '1e309',
  '"@@-1e309@@"': '-1e309',
  '"@@1e-400@@"': '1e-400',
  '"@@-0@@"': '-0',
  '"@@bigint@@"': '123456789012345678901234567890',
  '"@@deep-array@@"': `${'['.repeat(5000)}${']'.repeat(5000)}`,
  '"@@deep-object@@"': `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`,
};
const RAW_KEYS = Object.keys(RAW_LITERALS).map((k) => k.slice(1, -1));

function bodyText(value: unknown): string {
  let text = JSON.stringify(value);
  for (const [placeholder, literal] of Object.entries(RAW_LITERALS)) text = text.replaceAll(placeholder, literal);
  return text;
}

/** Sets (or, with `drop`, deletes) the value at a path of keys, when the path exists. */
function mutate(base: Json, path: (string | number)[], value: unknown, drop: boolean): unknown {
  const copy = structuredClone(base) as unknown;
  if (path.length === 0) return drop ? undefined : value;
  let target = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) {
    const next = target[key];
    if (next === null || typeof next !== 'object') return copy;
    target = next as Record<string | number, unknown>;
  }
  const last = path[path.length - 1] as string | number;
  if (drop) delete target[last];
  else target[last] = value;
  return copy;
}

/** Every path of keys in a value, for choosing what to mutate. */
function pathsOf(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((item, i) => pathsOf(item, [...prefix, i], out));
  else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) pathsOf(item, [...prefix, key], out);
  return out;
}

/** Values that tend to break things, each of them in some field of some route. */
const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(...RAW_KEYS),
  fc.constantFrom(null, true, false, 0, -1, 1.5, 101, -0.0001, 2 ** 53, '', ' ', [], {}, [null], { '': '' }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('\u0000', '\u202e', '\ud800', '💥'.repeat(60), 'a'.repeat(101), 'x'.repeat(5000), 'y'.repeat(300_000), 'z'.repeat(1_200_000)),
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'),
);

/** A value from the arbitrary about once in `every` draws, else undefined (the ordinary request). */
const sometimes = <T>(every: number, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: every - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

/** A JSON object literal with a prototype key as an own property, as a parsed body would have it. */
const protoKey = fc.constantFrom('__proto__', 'constructor', 'prototype');

interface Fixture {
  bodies: Map<string, Json>;
  ids: Map<string, string>;
  /** Puts back what a successful DELETE of the collection's fixture removed, so later runs still find it. */
  recreate: Map<string, () => Promise<void>>;
}

/** A valid body for the route, when the suite knows one; mutations start from it. */
function baseBody(route: WriteRoute, fixture: Fixture): Json {
  return fixture.bodies.get(`${route.method} ${route.template}`) ?? {};
}

/** The path with its parameters filled: mostly ids that exist, sometimes ones that don't or are odd. */
function concretePath(template: string, fixture: Fixture, odd: (string | undefined)[]): string {
  let i = 0;
  return template.replace(/\{(\w+)\}/g, (_m, name: string, offset: number) => {
    const alternative = odd[i++];
    if (alternative !== undefined) return encodeURIComponent(alternative);
    const collection = template.slice(0, offset).split('/').filter(Boolean).pop() ?? '';
    return encodeURIComponent(fixture.ids.get(name === 'reviewID' ? 'reviews' : collection) ?? 'does_not_exist');
  });
}

async function seed(t: TestConsole): Promise<Fixture> {
  const bodies = new Map<string, Json>();
  const ids = new Map<string, string>();
  const recreate = new Map<string, () => Promise<void>>();
  for (const { folder, body } of SAMPLE_ENTITIES) {
    const res = await t.call('POST', apiPathOf(folder), body);
    expect(res.statusCode, res.body).toBe(201);
    const collection = folder === 'assignment_sources' ? 'assignment_source' : folder;
    if (!recreate.has(collection)) recreate.set(collection, async () => void (await t.call('POST', apiPathOf(folder), body)));
    const list = apiPathOf(folder);
    const item = folder === 'assignment_sources' ? '/console/v1/experiments/assignment_source/{name}' : folder === 'prompts' ? `${list}/{name}` : `${list}/{id}`;
    const id = String(body['id'] ?? body['name']);
    const { id: _id, ...writable } = body;
    if (!bodies.has(`POST ${list}`)) {
      bodies.set(`POST ${list}`, { ...body, ...(body['id'] !== undefined ? { id: `${id}_2` } : {}), name: `${String(body['name'])} 2` });
      bodies.set(`POST ${item}`, writable);
      bodies.set(`PATCH ${item}`, { description: 'patched' });
      ids.set(item.split('/').slice(-2, -1)[0] ?? folder, id);
    }
  }
  const newKey = async (): Promise<void> => {
    const key = await t.call('POST', '/console/v1/keys', { description: 'fuzzed', userEmail: 'fuzz@example.com', role: 'member' });
    expect(key.statusCode, key.body).toBe(201);
    ids.set('keys', String((key.json() as { data: { id: string } }).data.id));
  };
  await newKey();
  recreate.set('keys', newKey);
  const role = await t.call('POST', '/console/v1/roles', { name: 'fuzz_role', permissions: ['read'] });
  expect(role.statusCode, role.body).toBe(201);
  ids.set('roles', 'fuzz_role');
  const newReview = async (): Promise<void> => {
    const review = await t.call('POST', '/console/v1/gates/new_checkout/reviews', { description: 'fuzz review', change: { description: `reviewed ${ids.size}` } });
    if (review.statusCode === 201) ids.set('reviews', String((review.json() as { data: { reviewID: string } }).data.reviewID));
  };
  await newReview();
  expect(ids.has('reviews')).toBe(true);
  recreate.set('reviews', newReview);
  bodies.set('POST /console/v1/keys', { description: 'k', userEmail: 'someone@example.com', role: 'read_only' });
  bodies.set('PATCH /console/v1/keys/{id}', { description: 'renamed' });
  bodies.set('POST /console/v1/roles', { name: 'another_role', permissions: ['read'] });
  bodies.set('PATCH /console/v1/roles/{name}', { permissions: ['read'] });
  bodies.set('POST /console/v1/change_validation', { reviewID: ids.get('reviews'), validated: true, message: 'ok' });
  bodies.set('PATCH /console/v1/change_validation/message', { reviewID: ids.get('reviews'), message: 'progress' });
  bodies.set('POST /console/v1/settings/reviews', { is_config_review_required: false });
  // Loopback on the discard port: a fuzzed commit may deliver the webhook, never off this machine.
  bodies.set('POST /console/v1/settings/precommit_webhook', { webhookURL: 'http://127.0.0.1:9/hook', webhookKey: 'k', initialMessage: 'm' });
  for (const kind of ['gates', 'dynamic_configs', 'segments', 'experiments']) {
    bodies.set(`POST /console/v1/${kind}/{id}/reviews`, { description: 'a change', change: { description: 'changed' } });
  }
  return { bodies, ids, recreate };
}

/** Everything a refused request must leave alone: entities, versions, audit, keys, roles, settings, reviews. */
async function fullSnapshot(t: TestConsole): Promise<string> {
  const { auth, roles, settings, reviews } = t.store;
  return JSON.stringify({
    base: await storeSnapshot(t),
    keys: await auth.listKeys(),
    roles: await roles.list(),
    settings: await Promise.all(['reviews', 'precommit_webhook'].map((name) => settings.get(name))),
    reviews: await reviews.list({ offset: 0, limit: 1000 }),
  });
}

function isLoopbackOrOff(url: unknown): boolean {
  if (typeof url !== 'string' || url === '') return true;
  try {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname);
  } catch {
    return true;
  }
}

describe('write routes under random and mutated bodies', () => {
  let t: TestConsole;
  let fixture: Fixture;
  let routes: WriteRoute[];
  /** Keys the requests are sent with, by who holds them; mostly the admin, so most requests get past auth. */
  let callers: Map<string, string>;

  beforeAll(async () => {
    t = createTestConsole({ webhookTimeoutMs: 1000 });
    fixture = await seed(t);
    callers = new Map([
      ['admin', ADMIN_KEY],
      ['member', await t.keyFor('fuzz-member@example.com', 'member')],
      ['read_only', await t.keyFor('fuzz-reader@example.com', 'read_only')],
    ]);
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    routes = Object.entries(doc.paths).flatMap(([template, operations]) =>
      Object.keys(operations)
        .map((m) => m.toUpperCase())
        .filter((m): m is WriteRoute['method'] => m === 'POST' || m === 'PUT' || m === 'PATCH' || m === 'DELETE')
        .map((method) => ({ method, template })),
    );
  });
  afterAll(() => t.close());

  it('the catalog lists the write routes of every kind, keys, roles, reviews and settings', () => {
    const templates = new Set(routes.map((r) => r.template));
    for (const path of ['/console/v1/gates', '/console/v1/keys/{id}', '/console/v1/roles', '/console/v1/settings/precommit_webhook', '/console/v1/change_validation']) {
      expect(templates).toContain(path);
    }
    expect(routes.length).toBeGreaterThan(50);
  });

  it('never answers 5xx; every error is the API envelope; a 4xx changes nothing', async () => {
    const body = (route: WriteRoute): fc.Arbitrary<string | undefined> => {
      const base = baseBody(route, fixture);
      const paths = pathsOf(base);
      return fc.oneof(
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map(bodyText) },
        { weight: 1, arbitrary: fc.constantFrom('{', '{"a":}', 'null', '[]', '""', 'NaN', '{"a":NaN}', '{"a":Infinity}', '{"a":0x10}', '\u0000', '{"a":1,"a":2}') },
        { weight: 2, arbitrary: fc.constant(bodyText(base)) },
        { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...paths), fc.boolean(), nastyValue).map(([path, drop, value]) => bodyText(mutate(base, path, value, drop && path.length > 0))) },
        {
          weight: 2,
          arbitrary: fc.tuple(fc.constantFrom(...paths), protoKey, nastyValue).map(([path, key, value]) => {
            // Defined, not assigned: assigning __proto__ would set the prototype instead of a key.
            const holder: Json = {};
            Object.defineProperty(holder, key, { value, enumerable: true, writable: true, configurable: true });
            const target = path.length === 0 ? { ...base, ...holder } : holder;
            return bodyText(path.length === 0 ? target : mutate(base, path, holder, false));
          }),
        },
      );
    };
    const request = fc
      .constantFrom(...routes)
      .chain((route) =>
        fc.record({
          route: fc.constant(route),
          body: body(route),
          odd: fc.array(sometimes(6, fc.oneof(fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constantFrom('a'.repeat(150), '..', '%ZZ', '__proto__'))), { minLength: 2, maxLength: 2 }),
          ifMatch: sometimes(6, fc.constantFrom('"1"', '"2"', '"999"', 'W/"1"', '*', 'x')),
          caller: fc.oneof({ weight: 12, arbitrary: fc.constant('admin') }, { weight: 1, arbitrary: fc.constantFrom('member', 'read_only', 'unknown') }),
          contentType: sometimes(10, fc.constantFrom('text/plain', 'application/json; charset=utf-16', 'application/x-www-form-urlencoded')),
        }),
      );

    await fc.assert(
      fc.asyncProperty(request, async ({ route, body: text, odd, ifMatch, caller, contentType }) => {
        const url = concretePath(route.template, fixture, odd);
        const before = await fullSnapshot(t);
        const headers: Record<string, string> = { 'service-api-key': callers.get(caller) ?? 'console-not-a-key' };
        if (text !== undefined) headers['content-type'] = contentType ?? 'application/json';
        if (ifMatch !== undefined) headers['if-match'] = ifMatch;
        const res = await t.app.inject({ method: route.method, url, headers, ...(text === undefined ? {} : { payload: text }) });
        const what = `${route.method} ${url} ${text === undefined ? '(no body)' : text.slice(0, 300)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
        expect(res.statusCode, what).toBeLessThan(500);
        if (res.statusCode >= 400) {
          const envelope = ApiErrorSchema.safeParse(res.json());
          expect(envelope.success, what).toBe(true);
          expect(envelope.data?.status, what).toBe(res.statusCode);
          expect(await fullSnapshot(t), what).toBe(before);
        } else if (route.method === 'DELETE') {
          const collection = route.template.split('/').slice(-2, -1)[0] ?? '';
          await fixture.recreate.get(collection)?.();
        } else if (route.template.endsWith('/precommit_webhook')) {
          const webhook = (await t.store.settings.get('precommit_webhook'));
          if (!isLoopbackOrOff(webhook?.['webhookURL'])) (await t.store.settings.set('precommit_webhook', { ...webhook, webhookURL: '' }));
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, 120_000);
});

/** What a key may do and where: its effective permissions (its user's role, or read under omni_read_only), environments and apps (empty: all). */
interface Reach {
  permissions: Set<string>;
  environments: string[];
  apps: string[];
}

const within = (inner: readonly string[], outer: readonly string[]): boolean => outer.length === 0 || (inner.length > 0 && inner.every((v) => outer.includes(v)));

/** Where `reach` goes beyond `bound`, or undefined when it does not. */
function exceeds(reach: Reach, bound: Reach): string | undefined {
  const extra = [...reach.permissions].filter((p) => !bound.permissions.has(p));
  if (extra.length > 0) return `permissions ${extra.join(', ')}`;
  if (!within(reach.environments, bound.environments)) return `environments [${reach.environments.join(', ')}] beyond [${bound.environments.join(', ')}]`;
  if (!within(reach.apps, bound.apps)) return `apps [${reach.apps.join(', ')}] beyond [${bound.apps.join(', ')}]`;
  return undefined;
}

describe('no key grants more than it holds', () => {
  const EMAILS = ['lead@example.com', 'dev@example.com', 'Dev@Example.com', 'ops@example.com', 'new@example.com'];
  const ROLES = ['admin', 'member', 'read_only', 'webhook_receiver', 'keys_only', 'roles_only', 'keys_and_write', 'custom'];
  const PERMISSION_NAMES: readonly string[] = PERMISSIONS;
  const subset = <T>(values: readonly T[]): fc.Arbitrary<T[]> => fc.subarray([...values]);
  const step = fc.record({
    actor: fc.nat(),
    target: fc.nat(),
    op: fc.constantFrom('create_key', 'create_key', 'patch_key', 'patch_key', 'rotate_key', 'deactivate_key', 'delete_key', 'create_role', 'patch_role', 'settings'),
    email: fc.constantFrom(...EMAILS),
    role: fc.constantFrom(...ROLES),
    environments: subset(['staging', 'production']),
    apps: subset(['web', 'ios']),
    readOnly: fc.boolean(),
    permissions: subset(PERMISSION_NAMES),
    fields: subset(['role', 'environments', 'apps', 'scopes'] as const),
  });

  it('random sequences of key, role and settings writes by random keys never leave a key beyond the key that created or last changed it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 25 }), async (steps) => {
        const t = createTestConsole();
        try {
          await t.app.ready();
          // Keys the sequence acts with, by id; each key's bound: the reach of whoever made or last changed it.
          const secrets = new Map<string, string>();
          const bounds = new Map<string, Reach>();
          const all: Reach = { permissions: new Set(PERMISSION_NAMES), environments: [], apps: [] };
          for (const [name, permissions] of [['keys_only', ['read', 'manage_keys']], ['roles_only', ['read', 'manage_roles']], ['keys_and_write', ['read', 'write', 'manage_keys', 'manage_roles', 'manage_settings']], ['custom', ['read']]] as const) {
            await t.auth.createRole(name, permissions);
          }
          const admin = (await t.call('GET', '/console/v1/whoami')).json().data.keyID as string;
          secrets.set(admin, ADMIN_KEY);
          for (const [email, role, environments, targetAppID] of [
            ['keys@example.com', 'keys_only', [], undefined],
            ['roles@example.com', 'roles_only', [], undefined],
            ['mixed@example.com', 'keys_and_write', [], undefined],
            ['limited@example.com', 'admin', ['staging'], 'web'],
            ['member@example.com', 'member', [], undefined],
          ] as const) {
            const { key, secret } = await t.auth.createKey({ description: 'seed', userEmail: email, role, environments: [...environments], targetAppID });
            secrets.set(key.id, secret);
          }

          const reachOf = async (id: string): Promise<Reach | undefined> => {
            const key = await t.store.auth.getKey(id);
            if (!key || key.type !== 'CONSOLE') return undefined;
            const role = (await t.store.auth.getUser(key.userEmail))?.role ?? 'read_only';
            const permissions = key.scopes.includes('omni_read_only') ? ['read'] : ((await t.store.roles.get(role))?.permissions ?? []);
            return { permissions: new Set(permissions), environments: key.environments, apps: key.primaryTargetApp === null ? [] : [key.primaryTargetApp, ...key.secondaryTargetApps] };
          };
          const keysOf = async (predicate: (key: { id: string; userEmail: string; role: string }) => boolean): Promise<string[]> => {
            const out: string[] = [];
            for (const key of await t.store.auth.listKeys()) {
              const role = (await t.store.auth.getUser(key.userEmail))?.role ?? 'read_only';
              if (predicate({ id: key.id, userEmail: key.userEmail, role })) out.push(key.id);
            }
            return out;
          };

          for (const s of steps) {
            const ids = [...secrets.keys()];
            const actorId = ids[s.actor % ids.length] as string;
            const actorReach = await reachOf(actorId);
            if (!actorReach) continue;
            const allIds = (await t.store.auth.listKeys()).map((k) => k.id);
            const targetId = allIds[s.target % allIds.length] ?? actorId;
            const send = (method: string, url: string, body?: unknown) => t.call(method, url, body, secrets.get(actorId));
            const limits = { environments: s.environments, ...(s.apps.length > 0 ? { targetAppID: s.apps[0], secondaryTargetAppIDs: s.apps.slice(1) } : {}) };
            const targetUser = (await t.store.auth.getKey(targetId))?.userEmail;
            const roleBefore = targetUser === undefined ? undefined : (await t.store.auth.getUser(targetUser))?.role;
            let touched: string[] = [];
            let res;
            switch (s.op) {
              case 'create_key':
                res = await send('POST', '/console/v1/keys', { description: 'fuzz', userEmail: s.email, role: s.role, ...limits, ...(s.readOnly ? { scopes: ['omni_read_only'] } : {}) });
                if (res.statusCode === 201) {
                  secrets.set(res.json().data.id as string, res.json().data.key as string);
                  touched = [res.json().data.id as string];
                }
                break;
              case 'patch_key': {
                const patch: Json = {};
                if (s.fields.includes('role')) patch['role'] = s.role;
                if (s.fields.includes('environments')) patch['environments'] = s.environments;
                if (s.fields.includes('apps')) Object.assign(patch, { targetAppID: s.apps[0] ?? null, secondaryTargetAppIDs: s.apps.slice(1) });
                if (s.fields.includes('scopes')) patch['scopes'] = s.readOnly ? ['omni_read_only'] : [];
                res = await send('PATCH', `/console/v1/keys/${targetId}`, patch);
                if (res.statusCode === 200) {
                  const user = (await t.store.auth.getKey(targetId))?.userEmail;
                  const roleAfter = user === undefined ? undefined : (await t.store.auth.getUser(user))?.role;
                  // A role change is the user's: every key of the user was changed with it.
                  touched = roleAfter !== roleBefore ? await keysOf((k) => k.userEmail === user) : [targetId];
                }
                break;
              }
              case 'rotate_key':
                res = await send('PATCH', `/console/v1/keys/${targetId}/rotate`);
                if (res.statusCode === 200) {
                  // The rotating key learns the new secret: it may act with it from now on.
                  secrets.set(targetId, res.json().data.key as string);
                  touched = [targetId];
                }
                break;
              case 'deactivate_key':
                res = await send('PATCH', `/console/v1/keys/${targetId}/deactivate`);
                if (res.statusCode === 200) secrets.delete(targetId);
                break;
              case 'delete_key':
                res = await send('DELETE', `/console/v1/keys/${targetId}`);
                if (res.statusCode === 200) {
                  secrets.delete(targetId);
                  bounds.delete(targetId);
                }
                break;
              case 'create_role':
                res = await send('POST', '/console/v1/roles', { name: `role_${s.target % 3}`, permissions: s.permissions });
                break;
              case 'patch_role':
                res = await send('PATCH', `/console/v1/roles/${s.role}`, { permissions: s.permissions });
                if (res.statusCode === 200) touched = await keysOf((k) => k.role === s.role);
                break;
              case 'settings':
                res = await send('POST', '/console/v1/settings/reviews', { is_config_review_required: s.readOnly });
                break;
            }
            expect(res?.statusCode ?? 0).toBeLessThan(500);
            for (const id of touched) bounds.set(id, actorReach);
            // Every key made or changed by someone holds no more than that key did.
            for (const [id, bound] of bounds) {
              const reach = await reachOf(id);
              const beyond = reach && exceeds(reach, bound);
              expect(beyond, `key ${id} after ${s.op} by ${actorId}: ${beyond}`).toBeUndefined();
            }
            // Keys nobody below the shell touched stay within everything.
            for (const id of allIds) if (!bounds.has(id)) expect(exceeds((await reachOf(id)) ?? all, all)).toBeUndefined();
          }
        } finally {
          await t.close();
        }
      }),
      { numRuns: Math.max(10, Math.round(RUNS / 25)), seed: SEED, endOnFailure: true },
    );
  }, 240_000);
});
