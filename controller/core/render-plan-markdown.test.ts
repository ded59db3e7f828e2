import { describe, expect, it } from 'vitest';
import type { Plan, PlanChange } from './plan.js';
import { MARKDOWN_BUDGET, PLAN_COMMENT_MARKER, renderPlanMarkdown } from './render-plan-markdown.js';
import { escapeControl } from './escape-control.js';

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

  it('keeps names from the repository or the console from adding HTML, markdown or lines of their own', () => {
    const plan = bigPlan(1);
    plan.changes = [
      { kind: 'gates', id: 'g', action: 'drift', file: 'gates/g|x`y.yaml', drift: { policy: 'detect', lastModifier: 'Eve</summary></details>\n\n# All clear <img src=x>' }, fields: [{ path: 'description', old: 'a\x1b[2J', new: 'b\u202ec' }] },
      { kind: 'prompts', id: 'p <b>x</b> ``y', action: 'delete', file: null, fields: [] },
    ];
    plan.warnings = ['base file gates/[click](http://evil.example) *x* _y_ z_w <img src=y>\n# heading did not load'];
    const md = renderPlanMarkdown(plan);
    expect(md).toContain('changed in the console by Eve&lt;/summary&gt;&lt;/details&gt;\\x0a\\x0a# All clear &lt;img src=x&gt;; policy detect');
    expect(md).toContain('<summary><code>- prompts/p &lt;b&gt;x&lt;/b&gt; ``y</code> delete');
    expect(md).not.toMatch(/<img|<\/summary><\/details>\n/);
    // Table cells: a pipe cannot open a cell, a backtick run cannot close the code span early.
    expect(md).toContain('| `` gates/g\\|x`y.yaml `` |');
    expect(md).toContain('| ``` prompts/p <b>x</b> ``y ``` |');
    expect(md).toContain('> **Warning:** base file gates/\\[click\\](http://evil.example) \\*x\\* \\_y\\_ z_w &lt;img src=y&gt;\\\\x0a# heading did not load');
    expect(md).toContain('- description: "a\\e[2J"');
    expect(md).toContain('+ description: b\\u202ec');
    // Nothing left to escape: no control character or override reached the output.
    expect(escapeControl(md)).toBe(md);
  });
});
