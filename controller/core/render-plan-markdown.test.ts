import { describe, expect, it } from 'vitest';
import type { Plan, PlanChange } from './plan.js';
import { MARKDOWN_BUDGET, PLAN_COMMENT_MARKER, renderPlanMarkdown } from './render-plan-markdown.js';

function bigPlan(n: number): Plan {
  const changes: PlanChange[] = Array.from({ length: n }, (_, i) => ({
    kind: 'gates',
    id: `gate_${String(i).padStart(5, '0')}`,
    action: 'update',
    file: `gates/gate_${i}.yaml`,
    fields: [{ path: 'description', old: 'x'.repeat(200), new: 'y'.repeat(200) }],
  }));
  return { desired: '.', live: 'http://console', summary: { create: 0, update: n, delete: 0, drift: 0, unchanged: 0, untracked: 0 }, changes, warnings: [] };
}

describe('renderPlanMarkdown', () => {
  it('puts the marker and the summary table first', () => {
    const md = renderPlanMarkdown(bigPlan(2));
    expect(md.startsWith(`${PLAN_COMMENT_MARKER}\n### flagops plan: 0 to create, 2 to update`)).toBe(true);
    expect(md.indexOf('| create | update |')).toBeLessThan(md.indexOf('<details>'));
    expect(md).not.toContain('this comment is cut');
  });

  it('stays under the budget with a note when the plan is too big', () => {
    const md = renderPlanMarkdown(bigPlan(2000));
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_BUDGET);
    expect(md).toMatch(/this comment is cut to stay under 60,000 characters: \d+ of 2000 changed entities are not shown in detail/);
    expect(md).toContain('| … |');
  });

  it('says so when there is nothing to change', () => {
    const md = renderPlanMarkdown({ ...bigPlan(0), summary: { create: 0, update: 0, delete: 0, drift: 0, unchanged: 5, untracked: 0 } });
    expect(md).toContain('### flagops plan: no changes');
    expect(md).toContain('Nothing to apply.');
  });

  it('fences code that itself contains backticks', () => {
    const plan = bigPlan(1);
    plan.changes[0]!.fields = [{ path: 'description', old: 'a', new: 'uses ``` fences' }];
    expect(renderPlanMarkdown(plan)).toContain('````diff');
  });
});
