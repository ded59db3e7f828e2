import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { createTestConsole, type TestConsole } from '../test-support/test-console.js';
import { planHash } from './apply-service.js';
import { ConsoleClient } from './console-client.js';
import { planAgainstConsole } from './plan-service.js';
import { parseSavedPlan, renderSavedPlan, savedPlanOf, verifySavedPlan } from './saved-plan.js';

let c: TestConsole;
let client: ConsoleClient;
let repo: string;

beforeAll(async () => {
  c = createTestConsole();
  client = new ConsoleClient({ baseUrl: await c.app.listen({ port: 0, host: '127.0.0.1' }), apiKey: await c.keyFor('flagops@ci.example.com', 'member') });
  repo = mkdtempSync(join(tmpdir(), 'flagops-saved-plan-'));
  for (const [path, text] of Object.entries({ 'flagops.yaml': 'console: { url: http://127.0.0.1:1 }\n', 'gates/gate_a.yaml': 'id: gate_a\nname: gate_a\n', 'gates/gate_b.yaml': 'id: gate_b\nname: gate_b\n' })) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  await c.call('POST', '/console/v1/gates', { id: 'gate_b', name: 'gate_b', description: 'old' });
});
afterAll(async () => {
  await c.close();
  rmSync(repo, { recursive: true, force: true });
});

const plan = () => planAgainstConsole({ desired: new FsRepoReader(repo), client });

async function save() {
  const result = await plan();
  const saved = savedPlanOf(result, { directory: repo, console: client.baseUrl, commit: 'abc', prune: false, targets: [], planHash: planHash(result.plan), now: new Date(0) });
  return parseSavedPlan(renderSavedPlan(saved), 'plan.json');
}

describe('saved plans', () => {
  it('records the plan, each file hash and each live version, and verifies against an unchanged state', async () => {
    const saved = await save();
    expect(saved.against.live).toEqual({ 'gates/gate_b': 1 });
    expect(Object.keys(saved.against.files)).toEqual(['flagops.yaml', 'gates/gate_a.yaml', 'gates/gate_b.yaml']);
    expect((saved.plan['changes'] as unknown[]).length).toBe(2);
    const result = await plan();
    expect(() => verifySavedPlan(saved, result, planHash(result.plan))).not.toThrow();
  });

  it('refuses, naming the file, when the repository moved', async () => {
    const saved = await save();
    writeFileSync(join(repo, 'gates/gate_a.yaml'), 'id: gate_a\nname: gate_a\ndescription: edited\n');
    const result = await plan();
    expect(() => verifySavedPlan(saved, result, planHash(result.plan))).toThrow(/the repository moved \(gates\/gate_a.yaml changed\)/);
    writeFileSync(join(repo, 'gates/gate_a.yaml'), 'id: gate_a\nname: gate_a\n');
  });

  it('refuses, naming the entity and versions, when the console moved', async () => {
    const saved = await save();
    await c.call('PATCH', '/console/v1/gates/gate_b', { description: 'newer' });
    await c.call('POST', '/console/v1/gates', { id: 'gate_c', name: 'gate_c' });
    const result = await plan();
    expect(() => verifySavedPlan(saved, result, planHash(result.plan))).toThrow(/the console moved \(gates\/gate_b version 1 → 2, gates\/gate_c created\)/);
  });

  it('refuses a file that is not a saved plan, by field', () => {
    expect(() => parseSavedPlan('{"formatVersion":1}', 'p.json')).toThrow(/p.json is not a saved plan/);
    expect(() => parseSavedPlan('not json', 'p.json')).toThrow(/p.json is not a saved plan/);
  });
});
