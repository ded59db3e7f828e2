import { describe, expect, it } from 'vitest';
import type { Plan } from './plan.js';
import { limitToTargets } from './plan.js';
import { renderPlanText } from './render-plan-text.js';
import { escapeControl } from './escape-control.js';

const plan: Plan = {
  desired: '.',
  live: 'http://console',
  summary: { create: 1, update: 1, delete: 0, drift: 0, unchanged: 0, untracked: 0 },
  changes: [
    { kind: 'gates', id: 'a', action: 'update', file: 'gates/a.yaml', fields: [{ path: 'rules[name=ramp].passPercentage', old: 10, new: 20 }] },
    {
      kind: 'gates',
      id: 'b',
      action: 'create',
      file: 'gates/b.yaml',
      fields: [{ path: 'rules', new: [{ name: 'ramp', passPercentage: 5, conditions: [{ type: 'email', targetValue: ['@a.example', '@b.example'] }] }] }],
    },
  ],
  warnings: [],
};

describe('renderPlanText', () => {
  it('prints rules and conditions as YAML lines, not JSON', () => {
    expect(renderPlanText(plan)).toContain(
      ['+ gates/b (gates/b.yaml)', '    + rules:', '      + - name: ramp', '      +   passPercentage: 5', '      +   conditions:', '      +     - type: email', '      +       targetValue: ["@a.example", "@b.example"]'].join('\n'),
    );
    expect(renderPlanText(plan)).toContain('    ~ rules[name=ramp].passPercentage: 10 → 20');
  });

  it('colours markers only when asked (a terminal without NO_COLOR)', () => {
    expect(renderPlanText(plan)).not.toContain('\u001b[');
    const coloured = renderPlanText(plan, { color: true });
    expect(coloured).toContain('\u001b[33m~\u001b[0m \u001b[1mgates/a\u001b[0m');
    expect(coloured).toContain('\u001b[31m10\u001b[0m → \u001b[32m20\u001b[0m');
    expect(coloured.replace(new RegExp(`${String.fromCharCode(27)}\\[\\d+m`, 'g'), '')).toBe(renderPlanText(plan));
  });

  it('escapes control characters from the repository or the console, so they cannot drive the terminal', () => {
    const hostile: Plan = {
      desired: 'flags\x1b]0;title\x07',
      live: 'http://console',
      summary: { create: 0, update: 0, delete: 0, drift: 1, unchanged: 0, untracked: 0 },
      changes: [
        {
          kind: 'gates',
          id: 'g\u202e',
          action: 'drift',
          file: 'gates/g\n.yaml',
          drift: { policy: 'detect', lastModifier: 'eve\x1b[8m' },
          fields: [
            { path: 'description', old: 'one\n\x1b[2Jtwo', new: 'one\ntwo' },
            { path: 'defaultValue.k\x1b[31m', old: 'a', new: 'b\u202ec' },
          ],
        },
      ],
      warnings: ['base file gates/\x1b[1mx.yaml did not load'],
    };
    for (const color of [false, true]) {
      const text = renderPlanText(hostile, { color }).replace(new RegExp(`${String.fromCharCode(27)}\\[\\d+m`, 'g'), '');
      // Nothing left to escape: no control character or override reached the output.
      expect(escapeControl(text)).toBe(text);
      expect(text).toContain('! gates/g\\u202e (gates/g\\x0a.yaml) changed in the console by eve\\x1b[8m');
      expect(text).toContain('      - \\x1b[2Jtwo');
      expect(text).toContain('defaultValue.k\\x1b[31m: a → b\\u202ec');
      expect(text).toContain('warning: base file gates/\\x1b[1mx.yaml did not load');
      expect(text).toContain('flagops plan: flags\\x1b]0;title\\x07 compared with');
    }
  });

  it('says what --target skipped', () => {
    const limited = limitToTargets(plan, ['gates/a']);
    expect(limited.summary).toMatchObject({ create: 0, update: 1 });
    expect(renderPlanText(limited)).toContain('warning: --target: 1 change outside the targets skipped: create gates/b.');
  });
});
