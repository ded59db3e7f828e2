import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITY_SCHEMAS, type EntitySchemaEntry } from '../../schemas/index.js';
import { AuthenticationError, ConflictError, InputError, NotAllowedError, NotFoundError, UpstreamError } from '../errors.js';
import { ADMIN_KEY, createTestConsole, type TestConsole } from '../test-support/test-console.js';
import { sharedHttpClient, type SendHttp } from '../net/http-client.js';
import { ConsoleClient } from './console-client.js';

const gates = ENTITY_SCHEMAS.find((e) => e.folder === 'gates') as EntitySchemaEntry;
const sources = ENTITY_SCHEMAS.find((e) => e.folder === 'assignment_sources') as EntitySchemaEntry;

let c: TestConsole;
let url: string;
const requested: string[] = [];
const recordingSend: SendHttp = (request) => {
  requested.push(`${request.method} ${request.url.href.replace(url, '')} ${request.headers['SERVICE-API-KEY'] === ADMIN_KEY ? 'key' : 'no-key'}`);
  return sharedHttpClient.send(request);
};

beforeAll(async () => {
  c = createTestConsole();
  url = await c.app.listen({ port: 0, host: '127.0.0.1' });
  for (let i = 0; i < 5; i++) await c.call('POST', '/console/v1/gates', { id: `gate_${i}`, name: `Gate ${i}` });
});
afterAll(() => c.close());

describe('ConsoleClient', () => {
  it('follows pagination.nextPage until every item is read, sending SERVICE-API-KEY', async () => {
    requested.length = 0;
    const client = new ConsoleClient({ baseUrl: url, apiKey: ADMIN_KEY, pageSize: 2, send: recordingSend });
    const items = await client.listEntities(gates);
    expect(items.map((g) => g['id'])).toEqual(['gate_0', 'gate_1', 'gate_2', 'gate_3', 'gate_4']);
    expect(requested).toEqual([
      'GET /console/v1/gates?page=1&limit=2 key',
      'GET /console/v1/gates?page=2&limit=2 key',
      'GET /console/v1/gates?page=3&limit=2 key',
    ]);
  });

  it('reads 1000 per page by default', async () => {
    requested.length = 0;
    await new ConsoleClient({ baseUrl: `${url}/`, apiKey: ADMIN_KEY, send: recordingSend }).listEntities(gates);
    expect(requested).toEqual(['GET /console/v1/gates?page=1&limit=1000 key']);
  });

  it('uses the kind paths of the registry (assignment sources live under /experiments)', async () => {
    const client = new ConsoleClient({ baseUrl: url, apiKey: ADMIN_KEY });
    const body = { name: 'src', sql: 'select 1', timestampColumn: 't', experimentIDColumn: 'e', groupIDColumn: 'g', idTypeMapping: [{ statsigUnitID: 'userID', column: 'u' }] };
    expect(await client.createEntity(sources, body)).toMatchObject({ name: 'src' });
    expect(await client.getEntity(sources, 'src')).toMatchObject({ name: 'src' });
    expect((await client.listEntities(sources)).map((s) => s['name'])).toEqual(['src']);
  });

  it('creates, updates with If-Match, and deletes', async () => {
    const client = new ConsoleClient({ baseUrl: url, apiKey: ADMIN_KEY });
    const created = await client.createEntity(gates, { id: 'crud_gate', name: 'CRUD gate' });
    const updated = await client.patchEntity(gates, 'crud_gate', { description: 'changed' }, { ifMatch: created['version'] as number });
    expect(updated).toMatchObject({ description: 'changed', version: 2 });
    await expect(client.updateEntity(gates, 'crud_gate', { isEnabled: true, description: '', rules: [] }, { ifMatch: 1 })).rejects.toBeInstanceOf(ConflictError);
    await client.deleteEntity(gates, 'crud_gate');
    await expect(client.getEntity(gates, 'crud_gate')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('maps console errors to domain errors, keeping the field errors of a 400', async () => {
    const client = new ConsoleClient({ baseUrl: url, apiKey: ADMIN_KEY });
    const error = await client.createEntity(gates, { id: 'x', name: 'ok name' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).errors).toContainEqual({ property: 'id', errorMessage: 'must be 3 to 100 characters long' });
    await expect(new ConsoleClient({ baseUrl: url, apiKey: 'console-nope' }).listEntities(gates)).rejects.toBeInstanceOf(AuthenticationError);
    const readOnly = await c.keyFor('viewer@example.com', 'read_only');
    await expect(new ConsoleClient({ baseUrl: url, apiKey: readOnly }).createEntity(gates, { name: 'Nope gate' })).rejects.toBeInstanceOf(NotAllowedError);
  });

  it('reports an unreachable console as an upstream error', async () => {
    const error = await new ConsoleClient({ baseUrl: 'http://127.0.0.1:9', apiKey: ADMIN_KEY }).listEntities(gates).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as Error).message).toContain('unreachable');
    expect((error as Error).message).not.toContain(ADMIN_KEY);
  });

  it('keeps the path of a base URL (a console served under a prefix)', async () => {
    const sent: string[] = [];
    const send: SendHttp = async (request) => {
      sent.push(request.url.href);
      return { status: 200, text: JSON.stringify({ message: 'ok', data: [], pagination: { nextPage: null } }) };
    };
    await new ConsoleClient({ baseUrl: 'https://flags.example.com/console-proxy/', apiKey: ADMIN_KEY, send }).listEntities(gates);
    expect(sent).toEqual(['https://flags.example.com/console-proxy/console/v1/gates?page=1&limit=1000']);
  });

  it('never sends the key elsewhere: a nextPage that is a URL or //host is refused', async () => {
    for (const nextPage of ['http://evil.example/console/v1/gates?page=2', '//evil.example/console/v1/gates?page=2', 'console/v1/gates?page=2']) {
      const sent: string[] = [];
      const send: SendHttp = async (request) => {
        sent.push(request.url.href);
        return { status: 200, text: JSON.stringify({ message: 'ok', data: [{ id: 'a' }], pagination: { nextPage } }) };
      };
      const error = await new ConsoleClient({ baseUrl: url, apiKey: ADMIN_KEY, send }).listEntities(gates).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UpstreamError);
      expect((error as Error).message).toContain(`${JSON.stringify(nextPage)} is not a path on it; no request was sent.`);
      expect(sent).toEqual([`${url}/console/v1/gates?page=1&limit=1000`]);
    }
  });
});
