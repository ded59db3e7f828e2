import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fastYamlLoad } from './fast-yaml-load.js';
import { parseYamlFileFully } from './parse-yaml-file.js';
import { repositoryYamlFiles } from '../test-support/repository-yaml-files.js';

/** The fast path may answer only with exactly what the full parse gives for a clean file. */
function expectParity(text: string): 'fast' | 'full' {
  const fast = fastYamlLoad(text);
  const full = parseYamlFileFully('f.yaml', text);
  if (!fast) return 'full';
  expect(full.issues, text).toEqual([]);
  expect(JSON.stringify(fast.data), text).toBe(JSON.stringify(full.data));
  expect(fast.data, text).toEqual(full.data);
  return 'fast';
}

describe('fastYamlLoad', () => {
  it('reads every YAML file of the repository (examples, template, fixtures) exactly as the full parse does', () => {
    const files = repositoryYamlFiles();
    expect(files.length).toBeGreaterThan(40);
    const paths = { fast: 0, full: 0 };
    for (const file of files) paths[expectParity(readFileSync(file, 'utf8'))]++;
    // Most files are plain: the fast path must actually be taken.
    expect(paths.fast).toBeGreaterThan(paths.full);
  });

  it.each([
    ['scalars of the core schema', 'a: 0o17\nb: 0x1F\nc: 1_000\nd: +.inf\ne: .NaN\nf: ~\ng: True\nh: yes\ni: 2001-12-14\nj: 1e3\nk: -0.5\nl: 12:30\n'],
    ['quoted and folded strings', 'a: "tab\\there"\nb: \'it\'\'s\'\nc: >\n  folded\n  text\n\n  para\nd: |-\n  kept\n  lines\n'],
    ['a JSON5 block whose braces start lines', 'defaultValueJson5: |\n  {\n    limit: 3,\n  }\nrules:\n  - name: r\n    returnValueJson5: |\n      {\n        a: [1,\n        ]\n      }\n'],
    ['an anchored scalar used twice', 'a: &v blue\nb: *v\n'],
    ['an empty file', ''],
    ['a comment only', '# nothing here\n'],
    ['nested flow collections on one line', 'a: { b: [1, 2, { c: d }], e: "x, y" }\n'],
  ])('takes the fast path for %s, with the same data', (_label, text) => {
    expect(expectParity(text)).toBe('fast');
  });

  it.each([
    ['a syntax error', 'a: [1, 2\nb: 3\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a duplicate key written as a string and a number', '1: a\n"1": b\n'],
    ['a YAML 1.1 directive', '%YAML 1.1\n---\na: yes\n'],
    ['a binary integer', 'a: 0b101\n'],
    ['an unknown tag', 'a: !custom x\n'],
    ['a 1.1 tag', 'a: !!binary aGVsbG8=\n'],
    ['an alias to a collection', 'base: &b { x: 1 }\ncopy: *b\n'],
    ['a flow end at its parent indentation', 'targetValue: [\n  a, b\n]\n'],
    // Conservative: any line starting with a flow end outside a block scalar, even one `yaml` accepts quietly.
    ['a flow end on a line of its own', 'items:\n  - a: [\n      1, 2\n    ]\n'],
    ['two documents', 'a: 1\n---\nb: 2\n'],
    ['a tab in indentation', 'a:\n\tb: 1\n'],
  ])('leaves %s to the full parse', (_label, text) => {
    expect(expectParity(text)).toBe('full');
  });
});
