import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { adoptYaml } from './adopt-yaml.js';

const file = `# yaml-language-server: $schema=../../schemas/json/gate.schema.json
# Checkout rollout, owned by payments.
id: checkout
name: checkout
description: New checkout flow # keep this comment
rules:
  # Employees first.
  - name: employees
    passPercentage: 100
    conditions:
      - type: email
        operator: str_contains_any
        targetValue: ["@example.com"]
  - name: ramp # public ramp
    passPercentage: 10
    conditions:
      - type: public
tags: [payments]
`;

describe('adoptYaml', () => {
  it('changes only differing values and keeps comments and key order', () => {
    const live = parse(file) as Record<string, unknown>;
    (live['rules'] as Record<string, unknown>[])[1]!['passPercentage'] = 25;
    const out = adoptYaml(file, live);
    expect(out).toContain('# Checkout rollout, owned by payments.');
    expect(out).toContain('# keep this comment');
    expect(out).toContain('# Employees first.');
    expect(out).toContain('- name: ramp # public ramp');
    expect(out).toMatch(/passPercentage: 25/);
    expect(parse(out)).toEqual(live);
    expect(out.indexOf('description')).toBeLessThan(out.indexOf('rules'));
  });

  it('matches list items by name, so a reorder keeps each item and its comments', () => {
    const live = parse(file) as Record<string, unknown>;
    live['rules'] = [...(live['rules'] as unknown[])].reverse();
    const out = adoptYaml(file, live);
    expect(out.indexOf('ramp')).toBeLessThan(out.indexOf('employees'));
    expect(out).toContain('# public ramp');
    expect(parse(out)).toEqual(live);
  });

  it('adds new fields, removes fields the console no longer has, keeps implied defaults on request', () => {
    const live: Record<string, unknown> = { ...(parse(file) as Record<string, unknown>), isEnabled: false };
    delete live['tags'];
    expect(parse(adoptYaml(file, live))).toEqual(live);
    const kept = parse(adoptYaml(file, live, (key) => key === 'tags')) as Record<string, unknown>;
    expect(kept['tags']).toEqual(['payments']);
  });

  it('keeps a JSON5 block that still matches, and rewrites one that does not', () => {
    const dc = `id: pricing\ndefaultValueJson5: |\n  {\n    // cents\n    price: 100,\n  }\n`;
    expect(adoptYaml(dc, { id: 'pricing', defaultValue: { price: 100 } })).toContain('// cents');
    const changed = adoptYaml(dc, { id: 'pricing', defaultValue: { price: 120 } });
    expect(changed).not.toContain('// cents');
    expect(JSON.parse((parse(changed) as { defaultValueJson5: string }).defaultValueJson5)).toEqual({ price: 120 });
    expect(parse(changed)).not.toHaveProperty('defaultValue');
    const fromConsole = adoptYaml(dc, { id: 'pricing', defaultValueJson5: '{\n  // euros now\n  price: 2,\n}\n' });
    expect(fromConsole).toContain('// euros now');
    expect(parse(fromConsole)).not.toHaveProperty('defaultValue');
  });
});
