import { describe, expect, it } from 'vitest';
import { PruneSettingsSchema } from '../../schemas/repo-config.js';
import { buildPlan } from '../core/plan.js';
import { renderPlanText } from '../core/render-plan-text.js';
import { contentChanges } from '../../web/src/content-diff.js';

const managedTag = PruneSettingsSchema.parse({}).managedTag;

const staff = { id: 'staff-rule', name: 'staff', passPercentage: 100, conditions: [{ type: 'email', operator: 'str_contains_any', targetValue: ['@example.com'] }] };
const ramp = { id: 'ramp-rule', name: 'ramp', passPercentage: 10, conditions: [{ type: 'public' }] };
const before = { id: 'checkout', name: 'checkout', description: 'Stops the checkout', rules: [staff, ramp] };
// The ramp rule moves first, is renamed (its id stays) and widened.
const after = { ...before, description: 'Stops the new checkout', rules: [{ ...ramp, name: 'rollout', passPercentage: 50 }, staff] };

/** The plan of `after` in a repository against `before` at another ref of it. */
function planOf(old: Record<string, unknown>, now: Record<string, unknown>) {
  const file = 'gates/checkout.yaml';
  return buildPlan('.', [{ folder: 'gates', kind: 'gate', id: 'checkout', file, data: now }], { label: 'git main', source: 'files', entities: new Map([['gates', [{ id: 'checkout', file, data: old }]]]) }, {
    prune: { enabled: false, managedTag, maxDeletes: 10 },
  });
}

describe('a review page and the plan', () => {
  it('describe the same change the same way: items matched by id, a move reported as an order change', () => {
    const page = contentChanges({ ...before, version: 3, lastModifiedTime: 1 }, { ...after, version: 4, lastModifiedTime: 2 });
    expect(page.map((c) => c.path)).toEqual(['description', 'rules[id=ramp-rule].name', 'rules[id=ramp-rule].passPercentage', 'rules#order']);

    const plan = planOf(before, after);
    expect(plan.changes).toHaveLength(1);
    expect(plan.changes[0]?.fields).toEqual(page);
    // The text the terminal and the pull-request comment show names the fields the page lists, in its order.
    const text = renderPlanText(plan);
    expect([...text.matchAll(/^ {4}[~+-] (\S+):/gm)].map((m) => m[1])).toEqual(page.map((c) => c.path));
    expect(text).toContain('    ~ rules[id=ramp-rule].name: ramp → rollout');
    expect(page.find((c) => c.path === 'rules#order')).toEqual({ path: 'rules#order', old: ['staff-rule', 'ramp-rule'], new: ['ramp-rule', 'staff-rule'] });
  });

  it('agree on a rule added and one removed', () => {
    const extra = { id: 'beta-rule', name: 'beta', passPercentage: 5, conditions: [{ type: 'public' }] };
    const now = { ...before, rules: [staff, extra] };
    const page = contentChanges(before, now);
    expect(page.map((c) => c.path)).toEqual(['rules[id=ramp-rule]', 'rules[id=beta-rule]']);
    expect(planOf(before, now).changes[0]?.fields.map((f) => f.path)).toEqual(page.map((c) => c.path));
  });
});
