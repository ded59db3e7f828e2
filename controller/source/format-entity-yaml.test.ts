import { describe, expect, it } from 'vitest';
import { entryForFolder } from '../../schemas/entity-file.js';
import type { EntitySchemaEntry } from '../../schemas/index.js';
import { formatEntityYaml } from './format-entity-yaml.js';
import { MAX_DEPTH } from './yaml-limits.js';

const GATES = entryForFolder('gates') as EntitySchemaEntry;

describe('formatEntityYaml', () => {
  it('puts the fields in schema order, keeping comments', () => {
    expect(formatEntityYaml('name: Gate # shown\nid: gate\n', GATES)).toEqual({ ok: true, text: 'id: gate\nname: Gate # shown\n' });
  });

  it('refuses nesting past the limit where validate does, without overflowing the stack', () => {
    const deep = formatEntityYaml(`id: gate\ndescription: ${'['.repeat(900)}${']'.repeat(900)}\n`, GATES);
    expect(deep).toEqual({ ok: false, problems: [{ line: 2, column: 14 + MAX_DEPTH - 1, message: `nests deeper than ${MAX_DEPTH} levels of mappings and sequences` }] });
    let indented = 'id: gate\ntags:\n';
    for (let level = 1; level <= 1400; level++) indented += `${' '.repeat(level)}k:\n`;
    expect(formatEntityYaml(indented, GATES)).toMatchObject({ ok: false, problems: [{ line: 2 + MAX_DEPTH, column: MAX_DEPTH + 1 }] });
  });

  it('refuses an order that would put an alias before its anchor, naming where; keeps one that does not', () => {
    const text = 'tags: &t [a, b]\nid: gate\nname: gate\nrules:\n  - name: r\n    passPercentage: 5\n    conditions:\n      - type: user_id\n        targetValue: *t\n';
    expect(formatEntityYaml(text, GATES)).toEqual({
      ok: false,
      problems: [{ line: 9, column: 22, message: 'the canonical key order puts alias *t before its anchor &t, which YAML does not allow: repeat the value here, or anchor it in a key that comes earlier' }],
    });
    const fine = formatEntityYaml('name: &n gate\nid: gate\ndescription: *n\n', GATES);
    expect(fine).toEqual({ ok: true, text: 'id: gate\nname: &n gate\ndescription: *n\n' });
  });

  it('refuses an alias that names no anchor, which the printer cannot print', () => {
    expect(formatEntityYaml('id: gate\ndescription: *nope\n', GATES)).toEqual({ ok: false, problems: [{ line: 2, column: 14, message: 'description: alias *nope names no anchor (&nope must be set before the alias)' }] });
  });
});
