import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { blockYamlLoad } from './block-yaml-load.js';
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
    ['a binary integer, a string in YAML 1.2', 'a: 0b101\nb: [-0b1]\n'],
  ])('takes the fast path for %s, with the same data', (_label, text) => {
    expect(expectParity(text)).toBe('fast');
  });

  it.each([
    ['a syntax error', 'a: [1, 2\nb: 3\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a duplicate key written as a string and a number', '1: a\n"1": b\n'],
    ['a YAML 1.1 directive', '%YAML 1.1\n---\na: yes\n'],
    ['an unknown tag', 'a: !custom x\n'],
    ['a non-specific tag', 'a: ! 12\n'],
    ['a 1.1 tag', 'a: !!binary aGVsbG8=\n'],
    ['an alias to a collection', 'base: &b { x: 1 }\ncopy: *b\n'],
    ['a flow end at its parent indentation', 'targetValue: [\n  a, b\n]\n'],
    // Conservative: any line starting with a flow end outside a block scalar, even one `yaml` accepts quietly.
    ['a flow end on a line of its own', 'items:\n  - a: [\n      1, 2\n    ]\n'],
    ['two documents', 'a: 1\n---\nb: 2\n'],
    ['a tab in indentation', 'a:\n\tb: 1\n'],
    ['an explicit key that is a collection', '? [a, b]\n: c\n'],
    ['a flow collection as a key', '{a: 1}: c\n'],
    ['an alias as a key', 'x: &k [a]\n*k : 1\n'],
    // js-yaml names the key `null`, `yaml` ''.
    ['a null key', 'a: {null: 1, ~: 2}\n'],
    ['a __proto__ key', 'a: {__proto__: {b: 1}}\n'],
  ])('leaves %s to the full parse', (_label, text) => {
    expect(expectParity(text)).toBe('full');
  });
});

/**
 * Plain scalars whose resolution in YAML 1.2's core schema is easy to get wrong: signs, dots,
 * exponents, radixes, infinities and NaNs, leading zeros, underscores, the null and boolean words and
 * their YAML 1.1 look-alikes, dates and times, more digits than a double holds.
 */
const TRICKY_SCALARS = [
  '0', '-0', '+0', '00', '007', '08', '-007', '+12', '-12', '12.', '-12.', '+12.', '1_000', '1__0', '_1', '1_',
  '0x1F', '0X1F', '0x1f', '-0x1F', '+0x7', '0x', '0xG', '0x_1', '0o7', '0O7', '+0o7', '-0o7', '0o8', '0o', '0b101', '-0b1', '+0b1', '0b2',
  '.5', '+.5', '-.5', '.', '-.', '+.', '.0', '-.0', '+.0', '0.0', '-0.0', '0.', '00.5', '1.2.3', '1,000', '1 000',
  '1e3', '1E3', '1e+3', '1E-3', '-1e3', '+1e3', '1.5e3', '.5e1', '-.5e1', '5.e1', '1e', 'e3', '1e+', '0e0', '-0e0', '1e400', '-1e400', '1e-400', '1_0e1',
  '.inf', '.Inf', '.INF', '+.inf', '-.inf', '-.Inf', '+.INF', '.iNf', 'inf', 'Infinity', '-Infinity', '.nan', '.NaN', '.NAN', '+.nan', '-.nan', '.nAn', 'nan', 'NaN',
  '~', 'null', 'Null', 'NULL', 'nULL', 'true', 'True', 'TRUE', 'tRUE', 'false', 'False', 'FALSE', 'yes', 'Yes', 'no', 'NO', 'on', 'Off', 'y', 'n',
  '2001-12-14', '2001-12-14t21:59:43.10-05:00', '12:30', '1:20', '-1:20', '190:20:30', '0.1', '9007199254740993', '123456789012345678901234567890', '0x123456789ABCDEF0123',
];

/** What `yaml` gives for a text, the reference; undefined when it reports an error or a warning. */
function yamlValue(text: string): { value: unknown } | undefined {
  const doc = parseDocument(text);
  return doc.errors.length === 0 && doc.warnings.length === 0 ? { value: doc.toJS() as unknown } : undefined;
}

describe('plain scalars on the fast paths', () => {
  it.each(TRICKY_SCALARS)('%s is read as `yaml` reads it, as a value, in flow collections and as a key, or left to the full parse', (scalar) => {
    for (const text of [`x: ${scalar}\n`, `x: [${scalar}, ${scalar}]\n`, `x: {k: ${scalar}}\n`, `${scalar}: 1\n`, `x: {${scalar}: 1}\n`]) {
      const reference = yamlValue(text);
      for (const fast of [fastYamlLoad(text), blockYamlLoad(text)]) {
        if (!fast) continue;
        expect(reference, text).toBeDefined();
        // toStrictEqual tells 0 from -0 and NaN from a string.
        expect(fast.data, text).toStrictEqual(reference?.value);
      }
    }
  });

  it('reads the numbers js-yaml alone got wrong as `yaml` does (+.5 and -.0 numbers, signed hex and octal strings, 1e400 Infinity)', () => {
    const text = 'a: +.5\nb: -.0\nc: -0x1F\nd: +0x7\ne: +0o7\nf: 1e400\ng: 0b11\nh: [+.5, -0x1F]\n';
    expect(fastYamlLoad(text)?.data).toStrictEqual({ a: 0.5, b: -0, c: '-0x1F', d: '+0x7', e: '+0o7', f: Infinity, g: '0b11', h: [0.5, '-0x1F'] });
  });
});
