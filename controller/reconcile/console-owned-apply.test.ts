import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { hasChanges } from '../core/plan.js';
import { renderPlanJson } from '../core/render-plan-json.js';
import { renderPlanMarkdown } from '../core/render-plan-markdown.js';
import { renderPlanText } from '../core/render-plan-text.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { createGitRepo } from '../test-support/git-repo.js';
import { createTestConsole, type TestConsole } from '../test-support/test-console.js';
import { applyRepo } from './apply-service.js';
import { ConsoleClient } from './console-client.js';
import { planAgainstConsole } from './plan-service.js';

const GATES = ENTITY_SCHEMAS.find((e) => e.folder === 'gates')!;

const gateFile = (condition: string): string =>
  ['id: checkout', 'name: checkout', 'description: New checkout', 'isEnabled: true', 'rules:', '  - name: ramp', '    passPercentage: 10', '    conditions:', `      - type: ${condition}`, ''].join('\n');

let c: TestConsole;
let dir: string;
let client: ConsoleClient;
let approver: ConsoleClient;
let oncall: ConsoleClient;

const apply = () => applyRepo({ desired: new FsRepoReader(dir), client, approver, pollIntervalMs: 5, sleep: async () => undefined });
const plan = async () => (await planAgainstConsole({ desired: new FsRepoReader(dir), client })).plan;

beforeAll(async () => {
  c = createTestConsole();
  const url = await c.app.listen({ port: 0, host: '127.0.0.1' });
  client = new ConsoleClient({ baseUrl: url, apiKey: await c.keyFor('flagops@ci.example.com', 'member') });
  approver = new ConsoleClient({ baseUrl: url, apiKey: await c.keyFor('lead@example.com', 'member') });
  oncall = new ConsoleClient({ baseUrl: url, apiKey: await c.keyFor('oncall@example.com', 'admin') });
  dir = await mkdtemp(join(tmpdir(), 'flagops-owned-'));
  await createGitRepo(dir, { 'flagops.yaml': 'ownership:\n  console:\n    gates: [isEnabled, "rules[*].passPercentage"]\n', 'gates/checkout.yaml': gateFile('public') });
});
afterAll(async () => {
  await c.close();
  await rm(dir, { recursive: true, force: true });
});

describe('console-owned fields against a console', () => {
  it("a create takes the file's values and names the owned fields in the entity's tags", async () => {
    const report = await apply();
    expect(report.ok).toBe(true);
    const gate = await client.getEntity(GATES, 'checkout');
    expect(gate).toMatchObject({ isEnabled: true, rules: [{ name: 'ramp', passPercentage: 10 }] });
    expect(gate['tags']).toEqual(['flagops-managed', 'flagops-console-owns:isEnabled', 'flagops-console-owns:rules[*].passPercentage']);
  });

  it('an on-call edit of owned fields is neither a change nor drift; every format shows it as owned by the console', async () => {
    await oncall.patchEntity(GATES, 'checkout', { isEnabled: false, rules: [{ name: 'ramp', passPercentage: 0, conditions: [{ type: 'public' }] }] });
    const p = await plan();
    expect(hasChanges(p)).toBe(false);
    expect(p.summary).toMatchObject({ update: 0, drift: 0, unchanged: 1 });
    expect(p.owned).toEqual([
      {
        kind: 'gates',
        id: 'checkout',
        file: 'gates/checkout.yaml',
        fields: [
          { path: 'isEnabled', old: false, new: true },
          { path: 'rules[name=ramp].passPercentage', old: 0, new: 10 },
        ],
      },
    ]);
    const text = renderPlanText(p);
    expect(text).toContain('= gates/checkout (gates/checkout.yaml) owned by the console: isEnabled false in the console, true in the file\n');
    expect(text).toContain('owned by the console: rules[name=ramp].passPercentage 0 in the console, 10 in the file\n');
    expect(text).toContain('No changes');
    const markdown = renderPlanMarkdown(p);
    expect(markdown).toContain('**Owned by the console** (not applied; the console\'s value stays):');
    expect(markdown).toContain('- `gates/checkout` owned by the console: isEnabled false in the console, true in the file\n');
    expect(markdown).toContain('Nothing to apply.');
    const json = JSON.parse(renderPlanJson(p)) as { changes: unknown[]; owned: unknown };
    expect(json.changes).toEqual([]);
    expect(json.owned).toEqual([
      {
        kind: 'gates',
        id: 'checkout',
        file: 'gates/checkout.yaml',
        fields: [
          { path: 'isEnabled', console: false, file: true },
          { path: 'rules[name=ramp].passPercentage', console: 0, file: 10 },
        ],
      },
    ]);
  });

  it("a git change of the same rule is applied without overwriting the console's owned values", async () => {
    // Uncommitted, so newer than the on-call edit: the repository moved last, an update rather than drift.
    await writeFile(join(dir, 'gates/checkout.yaml'), gateFile('mobile_only'));
    const before = await plan();
    expect(before.changes.map((ch) => ch.fields.map((f) => f.path))).toEqual([['rules[name=ramp].conditions[0].type']]);
    const report = await apply();
    expect(report.outcomes.map((o) => o.status)).toEqual(['committed']);
    expect(report.ok).toBe(true);
    const gate = await client.getEntity(GATES, 'checkout');
    expect(gate).toMatchObject({ isEnabled: false, rules: [{ name: 'ramp', passPercentage: 0, conditions: [{ type: 'mobile_only' }] }] });
  });
});
