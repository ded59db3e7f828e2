import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { activeFreeze } from '../core/bridge-policies.js';
import { teamRuleViolations } from '../core/team-rules.js';
import { fmtRepo } from '../source/fmt-repo.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { loadRepo, type LoadedRepo } from '../source/load-repo.js';
import { ADMIN_KEY, createTestConsole, type TestConsole } from '../test-support/test-console.js';
import { ConsoleClient } from './console-client.js';
import { planAgainstConsole } from './plan-service.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/config-repo', import.meta.url));
const TEMPLATE = fileURLToPath(new URL('../../config-repo-template', import.meta.url));

let c: TestConsole;
let client: ConsoleClient;
let repo: LoadedRepo;

beforeAll(async () => {
  c = createTestConsole();
  client = new ConsoleClient({ baseUrl: await c.app.listen({ port: 0, host: '127.0.0.1' }), apiKey: ADMIN_KEY });
  repo = await loadRepo(new FsRepoReader(EXAMPLE));
});
afterAll(() => c.close());

describe('examples/config-repo', () => {
  it('is in the canonical form, as is the template (flagops fmt --check passes on both)', async () => {
    for (const dir of [EXAMPLE, TEMPLATE]) expect((await fmtRepo(dir, { check: true })).changed, dir).toEqual([]);
  });

  it('validates clean and declares at least 30 entities of every kind', () => {
    expect(repo.diagnostics).toEqual([]);
    expect(repo.entities.length).toBeGreaterThanOrEqual(30);
    expect(new Set(repo.entities.map((e) => e.folder))).toEqual(new Set(ENTITY_SCHEMAS.map((e) => e.folder)));
  });

  it("the template's team rule holds its own example entities, and breaks a gate without a team tag", async () => {
    const template = await loadRepo(new FsRepoReader(TEMPLATE));
    expect(template.diagnostics).toEqual([]);
    expect(Object.keys(template.config.policies.schemas)).toEqual(['gates']);
    const gate = template.entities.find((e) => e.folder === 'gates');
    expect(teamRuleViolations('gates', gate?.data, template.config.policies.schemas)).toEqual([]);
    expect(teamRuleViolations('gates', { ...gate?.data, tags: ['flagops-managed'] }, template.config.policies.schemas).map((v) => v.rule)).toEqual(['policies.schemas.gates#/properties/tags/contains']);
    expect(teamRuleViolations('gates', { ...gate?.data, description: '' }, template.config.policies.schemas).map((v) => v.rule)).toEqual(['policies.schemas.gates#/properties/description/minLength']);
  });

  it('has no freeze window that can be active from now on: `npm start` applies it at any hour', () => {
    const windows = repo.config.bridge.freezeWindows;
    expect(windows.length).toBeGreaterThan(0); // the example still shows the setting
    const now = Date.now();
    // Every hour of the next two weeks, then every day of the next three years.
    const times = [...Array.from({ length: 14 * 24 }, (_, h) => now + h * 3_600_000), ...Array.from({ length: 3 * 366 }, (_, d) => now + d * 86_400_000)];
    expect(times.filter((t) => activeFreeze(windows, t) !== undefined).map((t) => new Date(t).toISOString())).toEqual([]);
  });

  it('plans every entity as a create against an empty console, then nothing once the console holds the files', async () => {
    const before = await planAgainstConsole({ desired: new FsRepoReader(EXAMPLE), client });
    expect(before.plan.summary).toMatchObject({ create: repo.entities.length, update: 0, delete: 0, unchanged: 0 });
    // Creating the files' fields as they are, in dependency order, is what apply will do.
    for (const entry of ENTITY_SCHEMAS) {
      for (const entity of repo.entities.filter((e) => e.folder === entry.folder)) await client.createEntity(entry, entity.data);
    }
    const after = await planAgainstConsole({ desired: new FsRepoReader(EXAMPLE), client });
    expect(after.plan.changes).toEqual([]);
    expect(after.plan.summary.unchanged).toBe(repo.entities.length);
  });
});
