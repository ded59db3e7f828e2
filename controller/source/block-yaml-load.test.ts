import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { CORE_SCHEMA, dump, load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { blockYamlLoad } from './block-yaml-load.js';
import { parseYamlFileFully } from './parse-yaml-file.js';
import { repositoryYamlFiles } from '../test-support/repository-yaml-files.js';

/**
 * The line reader may answer only with exactly what js-yaml's core schema and the full `yaml` parse
 * (with no issue) give. Returns whether it answered.
 */
function answersAsTheParsers(text: string, maxDepth = Infinity): boolean {
  const quick = blockYamlLoad(text, maxDepth);
  if (!quick) return false;
  let jsYaml: unknown;
  expect(() => (jsYaml = load(text, { schema: CORE_SCHEMA })), text).not.toThrow();
  expect(quick.data, text).toStrictEqual(jsYaml);
  const full = parseYamlFileFully('f.yaml', text);
  expect(full.issues, text).toEqual([]);
  expect(quick.data, text).toStrictEqual(full.data);
  return true;
}

const REPO_TEXTS = repositoryYamlFiles().map((file) => readFileSync(file, 'utf8'));

const GATE = `# yaml-language-server: $schema=../schemas/gate.schema.json
id: gate_0
name: Gate 0
description: Rollout 0 of the web shop. # why
type: PERMANENT
tags: [flagops-managed, team-0]
rules:
  - name: segment
    passPercentage: 100
    conditions:
      - type: passes_segment
        targetValue: [segment_0]
  - name: rollout
    passPercentage: 0.5
    conditions:
      - type: email
        operator: str_ends_with_any
        targetValue: ["@example.com", 'it''s']
    environments: [production]
`;

const CONFIG = `id: config_0
defaultValueJson5: |
  {
    limit: 0, // per customer

    label: 'feature 0',
  }
rules:
- name: gated
  returnValueJson5: |-
      { limit: 10 /* raised */ }

  parameterValues: { color: blue, size: -3, on: true, off: ~ }
description: "say \\"hi\\"\\tthere\\\\"
`;

describe('blockYamlLoad', () => {
  it('reads the YAML files of the repository (examples, template, fixtures) as the parsers do, most of them itself', () => {
    expect(REPO_TEXTS.length).toBeGreaterThan(40);
    const answered = REPO_TEXTS.filter((text) => answersAsTheParsers(text)).length;
    expect(answered).toBeGreaterThan(REPO_TEXTS.length * 0.7);
  });

  it.each([
    ['an entity with comments, flow sequences, quoted strings and decimals', GATE],
    ['literal blocks (kept, stripped, with blank lines), a sequence at its key\'s indentation, escapes', CONFIG],
    ['the core schema\'s words and numbers', 'a: null\nb: Null\nc: ~\nd: TRUE\ne: False\nf: 0\ng: -12\nh: 3.25\ni: -0.5\nj: yes\nk: off\nl:\nm: 9007199254740993\n'],
    ['nested blocks and empty collections', 'a:\n  b:\n    - c: 1\n      d: [ ]\n    -\n      e: {}\n    - - \n'.replace('- - \n', '- x\n')],
    ['quoted keys and values with colons and hashes', '"a b": \'c: d\'\n\'e#\': "f #g"\nh: i#j\nk: l:m\n'],
    ['plain strings that start with a slash, a dollar, an underscore or a letter beyond ASCII', 'a: /path/to\nb: $ref\nc: _x\nd: été\ne: (x)\n'],
    ['a null value before a less indented key and a comment at any indentation', 'a:\n      # note\nb:\n  c: 1\n# end\n'],
    ['a file without a final line break', 'a: |\n  x\n  y'],
  ])('reads %s', (_label, text) => {
    expect(answersAsTheParsers(text)).toBe(true);
  });

  it.each([
    ['an empty file', ''],
    ['a comment only', '# nothing\n'],
    ['a sequence at the root', '- a\n- b\n'],
    ['a scalar at the root', 'hello\n'],
    ['an indented root', '  a: 1\n'],
    ['a document marker', '---\na: 1\n'],
    ['a directive', '%YAML 1.2\n---\na: 1\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a duplicate key in a flow mapping', 'a: { b: 1, b: 2 }\n'],
    ['a key that resolves to a boolean', 'true: 1\n'],
    ['a prototype key', '__proto__: { a: 1 }\n'],
    ['a quoted prototype key', '"__proto__": 1\n'],
    ['a numeric key', '1: a\n'],
    ['a key with a space', 'a b: 1\n'],
    ['an anchor and an alias', 'a: &x 1\nb: *x\n'],
    ['a tag', 'a: !!str 1\n'],
    ['a folded block', 'a: >\n  x\n'],
    ['a kept block', 'a: |+\n  x\n\n'],
    ['an indentation indicator', 'a: |2\n   x\n'],
    ['an empty literal block', 'a: |\nb: 1\n'],
    ['a blank line holding more spaces than the block', 'a: |\n  x\n     \n  y\n'],
    ['a multi-line plain scalar', 'a: b\n  c\n'],
    ['a multi-line quoted scalar', 'a: "b\n  c"\n'],
    ['a multi-line flow collection', 'a: [b,\n  c]\n'],
    ['a trailing comma', 'a: [b, c, ]\n'],
    ['a colon in a flow scalar', 'a: [http://x]\n'],
    ['a mapping in a flow sequence', 'a: [b: c]\n'],
    ['a value that would be a mapping', 'a: b: c\n'],
    ['a value ending in a colon', 'a: b:\n'],
    ['a comment without a space', 'a: [b]#c\n'],
    ['an octal, a hexadecimal, an exponent, an underscore, a sign, a leading zero', 'a: 0o17\n'],
    ['a hexadecimal', 'a: 0x1F\n'],
    ['an exponent', 'a: 1e3\n'],
    ['an underscore in a number', 'a: 1_000\n'],
    ['a plus sign', 'a: +1\n'],
    ['a leading zero', 'a: 012\n'],
    ['a negative zero', 'a: -0\n'],
    ['infinity', 'a: .inf\n'],
    ['a date', 'a: 2001-12-14\n'],
    ['a rare escape', 'a: "\\x41"\n'],
    ['a tab', 'a:\n\tb: 1\n'],
    ['a carriage return', 'a: 1\r\nb: 2\r\n'],
    ['a byte-order mark', '\ufeffa: 1\n'],
    ['an astral character', 'a: 😀\n'],
    ['a no-break space', 'a: b\u00a0\n'],
    ['a line separator', 'a: b\u2028c\n'],
    ['a nested sequence on one line', 'a:\n  - - b\n'],
    ['an entry more indented than its siblings', 'a: 1\n  b: 2\n'],
    ['a sequence entry among keys', 'a: 1\n- b\n'],
  ])('leaves %s to js-yaml and yaml', (_label, text) => {
    expect(blockYamlLoad(text)).toBeUndefined();
  });

  it('leaves collections nested deeper than maxDepth to the other parsers (the root is level 1)', () => {
    const text = 'a:\n  b:\n    - [c]\n';
    expect(blockYamlLoad(text, 3)).toBeUndefined();
    expect(answersAsTheParsers(text, 4)).toBe(true);
    expect(blockYamlLoad('a: { b: { c: 1 } }\n', 2)).toBeUndefined();
    expect(blockYamlLoad('a: { b: { c: 1 } }\n', 3)).toEqual({ data: { a: { b: { c: 1 } } } });
  });

  it('reads a line of thousands of quoted items, escaped or not, as the parsers do', () => {
    const items = Array.from({ length: 5000 }, (_, i) => (i % 3 === 0 ? `"v\\"${i}"` : i % 3 === 1 ? `'it''s ${i}'` : `"v${i}"`));
    expect(answersAsTheParsers(`a: [${items.join(', ')}]\n`)).toBe(true);
  });

  it('leaves nesting deeper than the stack to the other parsers instead of throwing', () => {
    expect(blockYamlLoad(`a: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`)).toBeUndefined();
  });

  // Values whose YAML js-yaml writes in every style it knows: the reader reads them as the parsers do.
  const SCALARS = ['yes', 'null', 'Null', '~', '1.0', '-0', '0x1F', '012', '1e3', 'a: b', 'a #b', '#x', ' lead', 'trail ', "it's", 'say "hi"', 'back\\slash', 'two\nlines', '', '2001-12-14', '@x', 'été', '- x', '[x]', '{x}', 'a,b', '|', '>', '*a', '&a', '!t', '%p', '?', ':', 'x:', 'ok'];
  const scalar = fc.oneof(
    fc.constantFrom(...SCALARS),
    fc.stringMatching(/^[a-z][a-z0-9 _.-]{0,12}$/),
    fc.integer({ min: -1e6, max: 1e6 }),
    fc.integer({ min: -1e6, max: 1e6 }).map((n) => n / 100),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
    fc.boolean(),
    fc.constant(null),
  );
  const key = fc.constantFrom('id', 'name', 'rules', 'a-b', 'x.y', '$ref', '_k', 'yes', 'on', '1', '-', 'a b', 'a:b', '');
  const value = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(key, tie('value'), { maxKeys: 4 })),
  })).value;
  const document = fc.dictionary(key, value, { minKeys: 1, maxKeys: 6 });

  it('reads what js-yaml writes, in every style, as the parsers do', () => {
    let answered = 0;
    fc.assert(
      fc.property(document, fc.integer({ min: -1, max: 3 }), fc.constantFrom(2, 4), fc.boolean(), fc.constantFrom<"'" | '"'>("'", '"'), fc.boolean(), (doc, flowLevel, indent, noArrayIndent, quotingType, forceQuotes) => {
        const text = dump(doc, { flowLevel, indent, noArrayIndent, quotingType, forceQuotes, lineWidth: -1, schema: CORE_SCHEMA });
        if (answersAsTheParsers(text)) answered++;
      }),
      { numRuns: 1500 },
    );
    // The property means something only if the reader answers often (about one text in seven here:
    // a root flow mapping, an exponent, a tricky key or scalar anywhere sends the text on).
    expect(answered).toBeGreaterThan(100);
  });

  // Mutations of real files: whatever the reader answers for a damaged or unusual text, the parsers agree.
  const PIECES = [' ', '  ', '\n', ': ', ':', '- ', '-', '#', ' #', '"', "'", '[', ']', '{', '}', ',', '|', '|-', '>', '&a', '*a', '!', '0', '1', '.5', 'a', '~', '\t', '%', '?', '\\', '\\"', 'null', 'true', '__proto__'];
  const bases = [GATE, CONFIG, ...REPO_TEXTS.filter((text) => blockYamlLoad(text) !== undefined).slice(0, 40)];
  const mutation = fc.record({ at: fc.nat(), cut: fc.nat({ max: 3 }), piece: fc.constantFrom('', ...PIECES) });

  it('never answers differently from the parsers on mutated entity files', () => {
    let answered = 0;
    fc.assert(
      fc.property(fc.constantFrom(...bases), fc.array(mutation, { minLength: 1, maxLength: 4 }), (base, mutations) => {
        let text = base;
        for (const { at, cut, piece } of mutations) {
          const i = at % (text.length + 1);
          text = text.slice(0, i) + piece + text.slice(i + cut);
        }
        if (answersAsTheParsers(text)) answered++;
      }),
      { numRuns: 4000 },
    );
    expect(answered).toBeGreaterThan(400);
  });
});
