import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderPlanJson } from '../core/render-plan-json.js';
import { renderPlanMarkdown } from '../core/render-plan-markdown.js';
import { renderPlanText } from '../core/render-plan-text.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { planBetweenRefs } from './plan-service.js';

const GOLDEN = fileURLToPath(new URL('../core/__golden__/plan/', import.meta.url));
/** `UPDATE_GOLDEN=1 npx vitest run controller/reconcile/plan-golden.test.ts` rewrites the expected files after a deliberate change. */
const UPDATE = process.env['UPDATE_GOLDEN'] === '1';

function golden(name: string, actual: string): void {
  const path = `${GOLDEN}${name}`;
  if (UPDATE) writeFileSync(path, actual);
  expect(actual).toBe(readFileSync(path, 'utf8'));
}

async function goldenPlan() {
  const { plan } = await planBetweenRefs({ desired: new FsRepoReader(`${GOLDEN}head`, 'head'), base: new FsRepoReader(`${GOLDEN}base`, 'base') });
  return plan;
}

describe('plan renderers (golden)', () => {
  it('text', async () => golden('plan.txt', renderPlanText(await goldenPlan())));
  it('markdown', async () => golden('plan.md', renderPlanMarkdown(await goldenPlan())));
  it('json', async () => golden('plan.json', renderPlanJson(await goldenPlan())));

  it('is deterministic: the same input renders byte for byte the same', async () => {
    expect(renderPlanJson(await goldenPlan())).toBe(renderPlanJson(await goldenPlan()));
  });
});
