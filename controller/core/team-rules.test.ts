import { describe, expect, it } from 'vitest';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { POLICY_SCHEMA_FOLDERS } from '../../schemas/repo-config.js';
import { pointerToPath, teamRuleSchemaErrors, teamRuleViolations } from './team-rules.js';

const TEAM_TAG = { required: ['tags'], properties: { tags: { description: 'every gate carries a team-* tag', contains: { type: 'string', pattern: '^team-' } } } };

describe('team rules', () => {
  it('may constrain every kind folder of the repository', () => {
    expect([...POLICY_SCHEMA_FOLDERS].sort()).toEqual(ENTITY_SCHEMAS.map((e) => e.folder).sort());
  });

  it('turns JSON pointers into property paths', () => {
    expect(pointerToPath('')).toBe('');
    expect(pointerToPath('/rules/0/passPercentage')).toBe('rules[0].passPercentage');
    expect(pointerToPath('/a~1b/c~0d')).toBe('a/b.c~d');
  });

  it('accepts valid JSON Schema 2020-12, booleans included', () => {
    expect(teamRuleSchemaErrors({ gates: TEAM_TAG, experiments: true, segments: { $defs: { x: { type: 'string' } }, prefixItems: [{ type: 'string' }] } })).toEqual([]);
  });

  it('names the property of flagops.yaml where a rule is not JSON Schema', () => {
    expect(teamRuleSchemaErrors({ gates: { required: 'tags' } })).toEqual([{ property: 'policies.schemas.gates.required', errorMessage: 'is not valid JSON Schema 2020-12: must be array' }]);
    expect(teamRuleSchemaErrors({ gates: { properties: { tags: { type: 'text' } } } })[0]?.property).toBe('policies.schemas.gates.properties.tags.type');
    expect(teamRuleSchemaErrors({ gates: { allOf: [{ minLength: -1 }] } })[0]?.property).toBe('policies.schemas.gates.allOf[0].minLength');
  });

  it('refuses a misspelt keyword and an unresolvable reference rather than ignoring them', () => {
    expect(teamRuleSchemaErrors({ gates: { requried: ['tags'] } })).toEqual([{ property: 'policies.schemas.gates', errorMessage: 'is not a usable JSON Schema 2020-12: strict mode: unknown keyword: "requried"' }]);
    expect(teamRuleSchemaErrors({ experiments: { $ref: 'https://example.com/nowhere.json' } })[0]?.errorMessage).toMatch(/can't resolve reference/);
  });

  it('reports each violation at the property it judges, naming the rule and its description', () => {
    expect(teamRuleViolations('gates', { id: 'g', tags: ['checkout'] }, { gates: TEAM_TAG })).toEqual([
      { property: 'tags', rule: 'policies.schemas.gates#/properties/tags/contains', message: 'must contain at least 1 valid item(s) (every gate carries a team-* tag)' },
    ]);
    expect(teamRuleViolations('gates', { id: 'g' }, { gates: TEAM_TAG })).toEqual([{ property: '', rule: 'policies.schemas.gates#/required', message: "must have required property 'tags'" }]);
    expect(teamRuleViolations('gates', { id: 'g', tags: ['team-a'] }, { gates: TEAM_TAG })).toEqual([]);
  });

  it('leaves kinds without a rule alone, and judges by a rule that does not compile as broken', () => {
    expect(teamRuleViolations('segments', { id: 's' }, { gates: TEAM_TAG })).toEqual([]);
    expect(teamRuleViolations('gates', { id: 'g' }, { gates: { requried: [] } })[0]?.message).toMatch(/^is not a usable JSON Schema 2020-12/);
  });

  it('runs patterns on the linear-time engine: a hostile pattern answers at once', () => {
    const started = Date.now();
    const violations = teamRuleViolations('gates', { description: `${'a'.repeat(10_000)}!` }, { gates: { properties: { description: { pattern: '^(a+)+$' } } } });
    expect(violations).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
