/**
 * The HTTP conventions (docs/design.md, "HTTP conventions") that hold for every /console/v1 endpoint: envelope, status codes,
 * error body, body size and content type, malformed JSON, hidden internals, If-Match, transactions,
 * and the OpenAPI document generated from the zod schemas.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GateSchema } from '../../../schemas/gate.js';
import { createConsole } from '../../compose.js';
import { AuthenticationError, ConflictError, InputError, NotAllowedError, NotFoundError, RateLimitedError, UpstreamError, type DomainError } from '../../errors.js';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';
import { storeSnapshot } from '../../test-support/validation-table.js';

let c: TestConsole;
beforeEach(() => {
  c = createTestConsole({ testRoutes: ['/console/v1/boom'] });
});
afterEach(() => c.close());

const snapshot = storeSnapshot;

async function createGate(body: Record<string, unknown> = { name: 'checkout' }): Promise<Record<string, unknown>> {
  const res = await c.call('POST', '/console/v1/gates', body);
  expect(res.statusCode).toBe(201);
  return res.json().data;
}

describe('envelope and status codes', () => {
  it('create → 201 {message, data}; read, update, action → 200 {message, data}', async () => {
    const created = await c.call('POST', '/console/v1/gates', { name: 'checkout' });
    expect(created.statusCode).toBe(201);
    expect(Object.keys(created.json()).sort()).toEqual(['data', 'message']);
    expect(created.json().message).toEqual(expect.any(String));
    for (const [method, url, body] of [
      ['GET', '/console/v1/gates/checkout', undefined],
      ['PATCH', '/console/v1/gates/checkout', { description: 'x' }],
      ['POST', '/console/v1/gates/checkout', { isEnabled: true, description: 'y', rules: [] }],
      ['PUT', '/console/v1/gates/checkout/disable', undefined],
    ] as const) {
      const res = await c.call(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(200);
      expect(Object.keys(res.json()).sort()).toEqual(['data', 'message']);
      expect(res.json().data.id).toBe('checkout');
    }
  });

  it('list → 200 {message, data[], pagination}', async () => {
    await createGate();
    const res = await c.call('GET', '/console/v1/gates');
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual(['data', 'message', 'pagination']);
    expect(res.json().data).toHaveLength(1);
  });

  it('delete → 200 {message} without data', async () => {
    await createGate();
    const res = await c.call('DELETE', '/console/v1/gates/checkout');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: expect.any(String) });
    expect((await c.call('GET', '/console/v1/gates/checkout')).statusCode).toBe(404);
  });

  it('answers JSON with a content type', async () => {
    const res = await c.call('GET', '/console/v1/gates');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('answers every API request, success or error, with Cache-Control: no-store and nosniff', async () => {
    const created = await c.call('POST', '/console/v1/keys', { description: 'x', userEmail: 'x@example.com', role: 'read_only' });
    for (const res of [created, await c.call('GET', '/console/v1/gates'), await c.call('GET', '/console/v1/gates/nope'), await c.call('GET', '/console/v1/gates', undefined, 'console-wrong')]) {
      expect(res.headers['cache-control'], `${res.statusCode}`).toBe('no-store');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});

describe('error bodies', () => {
  it('404 for an unknown entity: {status, message} naming the kind', async () => {
    const res = await c.call('GET', '/console/v1/gates/nope');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ status: 404, message: 'Gate not found.' });
    expect((await c.call('GET', '/console/v1/dynamic_configs/nope')).json().message).toBe('Dynamic config not found.');
    expect((await c.call('GET', '/console/v1/segments/nope')).json().message).toBe('Segment not found.');
  });

  it('404 for an unknown route, in the same shape', async () => {
    const res = await c.call('GET', '/console/v1/no_such_thing');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ status: 404, message: expect.stringContaining('/console/v1/no_such_thing') });
  });

  it('400 lists every violated constraint with its property path', async () => {
    const res = await c.call('POST', '/console/v1/gates', { name: 'x', description: 'd'.repeat(1001), rules: [{ name: 'r', passPercentage: 150, conditions: [] }] });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.status).toBe(400);
    expect(body.message).toEqual(expect.any(String));
    expect(body.errors.map((e: { property: string }) => e.property).sort()).toEqual(['description', 'name', 'rules[0].passPercentage']);
    for (const error of body.errors) expect(Object.keys(error).sort()).toEqual(['errorMessage', 'property']);
  });

  it('409 for a duplicate id, changing nothing', async () => {
    await createGate({ name: 'checkout', description: 'first' });
    const before = await snapshot(c);
    const res = await c.call('POST', '/console/v1/gates', { name: 'checkout', description: 'second' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ status: 409, message: expect.stringContaining('checkout') });
    expect(await snapshot(c)).toBe(before);
  });
});

describe('request bodies', () => {
  it('malformed JSON → 400 naming the body, never a 500, nothing stored', async () => {
    const before = await snapshot(c);
    const res = await c.call('POST', '/console/v1/gates', '{"name": "checkout",');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, errors: [{ property: '(body)' }] });
    expect(await snapshot(c)).toBe(before);
  });

  it.each([
    ['an array', []],
    ['a string', '"checkout"'],
    ['a number', '42'],
    ['null', 'null'],
  ])('a JSON body that is %s → 400 naming the body', async (_what, body) => {
    const res = await c.call('POST', '/console/v1/gates', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ property: '(body)', errorMessage: expect.any(String) }]);
  });

  it('a missing body on a create → 400, not a 500', async () => {
    const res = await c.call('POST', '/console/v1/gates', undefined, undefined, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].property).toBe('(body)');
  });

  it('a body over the limit → 413, nothing stored', async () => {
    const before = await snapshot(c);
    const res = await c.call('POST', '/console/v1/gates', { name: 'big', description: 'x'.repeat(1024 * 1024 + 1) });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ status: 413, message: expect.any(String), errors: [{ property: '(body)', errorMessage: 'is larger than the accepted size' }] });
    expect(await snapshot(c)).toBe(before);
  });

  it('honours a configured body limit', async () => {
    const instance = createConsole({ db: ':memory:', bootstrapKey: 'console-small', bodyLimit: 100 });
    try {
      const res = await instance.app.inject({ method: 'POST', url: '/console/v1/gates', headers: { 'service-api-key': 'console-small', 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'small', description: 'x'.repeat(200) }) });
      expect(res.statusCode).toBe(413);
    } finally {
      await instance.close();
    }
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x'])('content type %s → 415, nothing stored', async (type) => {
    const before = await snapshot(c);
    const res = await c.call('POST', '/console/v1/gates', '{"name":"checkout"}', undefined, { 'content-type': type });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ status: 415, message: expect.any(String), errors: [{ property: 'content-type', errorMessage: 'must be application/json' }] });
    expect(await snapshot(c)).toBe(before);
  });

  it('accepts application/json with a charset', async () => {
    const res = await c.call('POST', '/console/v1/gates', { name: 'checkout' }, undefined, { 'content-type': 'application/json; charset=utf-8' });
    expect(res.statusCode).toBe(201);
  });

  it('an action with an empty JSON body is "no body", not malformed JSON', async () => {
    await createGate();
    const res = await c.call('PUT', '/console/v1/gates/checkout/disable', '', undefined, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.isEnabled).toBe(false);
  });
});

describe('internal errors', () => {
  it('a throwing route → 500 with only {status, message}: no message, stack or path leaks', async () => {
    c.app.get('/console/v1/boom', () => {
      throw new Error('secret detail at /srv/flagops/controller/secret.ts:12');
    });
    const res = await c.call('GET', '/console/v1/boom');
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ status: 500, message: 'Internal Server Error' });
    expect(res.body).not.toMatch(/secret|stack|\.ts/);
  });

  it('a SyntaxError from our own code is a 500, not a "malformed body" 400', async () => {
    c.app.get('/console/v1/boom', () => JSON.parse('{stored garbage') as unknown);
    const res = await c.call('GET', '/console/v1/boom');
    expect(res.json()).toEqual({ status: 500, message: 'Internal Server Error' });
  });

  it('a TypeError is a 500 too', async () => {
    c.app.get('/console/v1/boom', () => {
      throw Object.assign(new TypeError('cannot read properties of undefined'), { statusCode: undefined });
    });
    const res = await c.call('GET', '/console/v1/boom');
    expect(res.json()).toEqual({ status: 500, message: 'Internal Server Error' });
  });

  it.each<[string, DomainError, number]>([
    ['InputError', new InputError('Bad input.', [{ property: 'name', errorMessage: 'is wrong' }]), 400],
    ['AuthenticationError', new AuthenticationError('Who are you?'), 401],
    ['NotAllowedError', new NotAllowedError('Not you.'), 403],
    ['NotFoundError', new NotFoundError('Gone.'), 404],
    ['ConflictError', new ConflictError('Clash.'), 409],
    ['RateLimitedError', new RateLimitedError('Slow down.'), 429],
    ['UpstreamError', new UpstreamError('Webhook receiver failed.'), 502],
  ])('%s thrown by a route → its status and message', async (_name, error, status) => {
    c.app.get('/console/v1/boom', () => {
      throw error;
    });
    const res = await c.call('GET', '/console/v1/boom');
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ status, message: error.message, ...(error instanceof InputError ? { errors: error.errors } : {}) });
  });
});

describe('optimistic concurrency (If-Match)', () => {
  it('applies a write whose expected version matches, in any accepted spelling', async () => {
    await createGate();
    for (const [header, version] of [['"1"', 2], ['2', 3], ['W/"3"', 4]] as const) {
      const res = await c.call('PATCH', '/console/v1/gates/checkout', { description: `v${version}` }, undefined, { 'if-match': header });
      expect(res.statusCode, header).toBe(200);
      expect(res.json().data.version).toBe(version);
    }
  });

  it.each([
    ['PATCH', '/console/v1/gates/checkout', { description: 'late' }],
    ['POST', '/console/v1/gates/checkout', { isEnabled: true, description: 'late', rules: [] }],
    ['PUT', '/console/v1/gates/checkout/disable', undefined],
    ['DELETE', '/console/v1/gates/checkout', undefined],
  ] as const)('a stale version on %s %s → 409 with the current version, nothing changed', async (method, url, body) => {
    await createGate();
    await c.call('PATCH', '/console/v1/gates/checkout', { description: 'v2' });
    const before = await snapshot(c);
    const res = await c.call(method, url, body, undefined, { 'if-match': '"1"' });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toMatch(/version 2/);
    expect(await snapshot(c)).toBe(before);
  });

  it('a malformed If-Match → 400 naming the header', async () => {
    await createGate();
    const res = await c.call('PATCH', '/console/v1/gates/checkout', { description: 'x' }, undefined, { 'if-match': 'yesterday' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ property: 'If-Match', errorMessage: expect.any(String) }]);
  });

  it('a version past 2^53-1 → 400 naming the header, not a 409 about a rounded number', async () => {
    await createGate();
    const before = await snapshot(c);
    const res = await c.call('PATCH', '/console/v1/gates/checkout', { description: 'x' }, undefined, { 'if-match': '"99999999999999999999999"' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ property: 'If-Match', errorMessage: 'must be an entity version, at most 9007199254740991' }]);
    expect(await snapshot(c)).toBe(before);
  });
});

describe('writes are transactions', () => {
  it('a create writes the entity, version 1 and one audit row with the actor and key', async () => {
    await createGate();
    expect((await c.store.entities.get('gate', 'checkout'))?.version).toBe(1);
    expect((await c.store.entities.versions('gate', 'checkout', 0, 10)).items.map((v) => v.version)).toEqual([1]);
    const audit = (await c.store.audit.list({ offset: 0, limit: 10 }));
    expect(audit.items).toEqual([expect.objectContaining({ action: 'create', kind: 'gate', entityId: 'checkout', version: 1, actorEmail: 'admin@localhost', actorKeyId: expect.stringMatching(/^key_/) })]);
  });

  it('every change bumps the version and appends a snapshot; an unchanged write is a no-op', async () => {
    await createGate();
    await c.call('PATCH', '/console/v1/gates/checkout', { description: 'two' });
    const same = await c.call('PATCH', '/console/v1/gates/checkout', { description: 'two' });
    expect(same.statusCode).toBe(200);
    expect(same.json().data.version).toBe(2);
    expect(same.json().message).toMatch(/unchanged/i);
    expect((await c.store.entities.versions('gate', 'checkout', 0, 10)).total).toBe(2);
    expect((await c.store.audit.list({ offset: 0, limit: 10 })).total).toBe(2);
  });

  it('a store failure in the middle of a write leaves nothing behind', async () => {
    await createGate();
    const before = await snapshot(c);
    // The entity, its version and its audit row are written, then the store fails.
    const transaction = c.store.transaction.bind(c.store);
    c.store.transaction = (fn) =>
      transaction((tx) =>
        fn({
          ...tx,
          entities: {
            ...tx.entities,
            save: async (change) => {
              await tx.entities.save(change);
              throw new Error('disk full');
            },
          },
        }),
      );
    const res = await c.call('PATCH', '/console/v1/gates/checkout', { description: 'lost' });
    c.store.transaction = transaction;
    expect(res.statusCode).toBe(500);
    expect(await snapshot(c)).toBe(before);
    expect((await c.call('GET', '/console/v1/gates/checkout')).json().data.description).toBe('');
  });
});

describe('OpenAPI document', () => {
  interface OpenApiDoc {
    openapi: string;
    components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
    paths: Record<string, Record<string, { security: unknown }>>;
  }
  const openApi = async (): Promise<OpenApiDoc> => {
    const res = await c.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    return res.json();
  };

  it('is served without a key and declares the SERVICE-API-KEY header on every console operation', async () => {
    const doc = await openApi();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes['ServiceApiKey']).toEqual({ type: 'apiKey', in: 'header', name: 'SERVICE-API-KEY' });
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.values(ops).map((op) => [path, op.security] as const));
    expect(operations.length).toBeGreaterThan(30);
    for (const [path, security] of operations) expect(security, path).toEqual([{ ServiceApiKey: [] }]);
  });

  it('lists every endpoint of gates, dynamic configs, segments, keys and roles', async () => {
    const { paths } = await openApi();
    const ops = Object.entries(paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    expect(ops).toEqual(
      expect.arrayContaining([
        'GET /console/v1/gates',
        'POST /console/v1/gates',
        'GET /console/v1/gates/{id}',
        'POST /console/v1/gates/{id}',
        'PATCH /console/v1/gates/{id}',
        'DELETE /console/v1/gates/{id}',
        ...['enable', 'disable', 'launch', 'archive', 'unarchive'].map((a) => `PUT /console/v1/gates/{id}/${a}`),
        'GET /console/v1/gates/{id}/versions',
        'POST /console/v1/dynamic_configs',
        'POST /console/v1/dynamic_configs/{id}',
        'PATCH /console/v1/dynamic_configs/{id}',
        'PUT /console/v1/dynamic_configs/{id}/enable',
        'GET /console/v1/dynamic_configs/{id}/versions',
        'PATCH /console/v1/segments/{id}/add_ids',
        'PATCH /console/v1/segments/{id}/remove_ids',
        'POST /console/v1/keys',
        'PATCH /console/v1/keys/{id}/rotate',
        'GET /console/v1/roles',
        'PATCH /console/v1/roles/{name}',
      ]),
    );
    expect(JSON.stringify(paths['/console/v1/gates'])).toContain('at most 1000');
    expect(JSON.stringify(paths['/console/v1/dynamic_configs/{id}'])).toContain('dryRun');
  });

  it('validates requests and responses like the zod schemas do (checked with ajv)', async () => {
    const doc = await openApi();
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const validator = (name: string) => ajv.compile({ $ref: `doc#/components/schemas/${name}` });
    const create = validator('GateCreate');
    expect(create({ name: 'checkout', rules: [{ name: 'all', passPercentage: 50, conditions: [{ type: 'public' }] }] })).toBe(true);
    expect(create({ name: 'x' })).toBe(false);
    expect(create({ name: 'checkout', type: 'BETA' })).toBe(false);
    expect(create({ name: 'checkout', description: 'd'.repeat(1001) })).toBe(false);
    expect(validator('DynamicConfigCreate')({ name: 'config', id: 'has space' })).toBe(false);

    const created = (await c.call('POST', '/console/v1/gates', { name: 'checkout', rules: [{ name: 'all', passPercentage: 50, conditions: [{ type: 'public' }] }] })).json().data;
    // holdoutIDs is computed by the holdout kind (tested there); the gate's own value wins once present.
    const gate = { holdoutIDs: [], ...created };
    const response = validator('Gate');
    expect(response(gate), JSON.stringify(response.errors)).toBe(true);
    expect(GateSchema.safeParse(gate).success).toBe(true);
  });
});
