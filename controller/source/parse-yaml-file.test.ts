/**
 * What the YAML of an entity file may not hold, through `validate`'s path (the working-tree reader,
 * loadRepo): every case is one error at file:line:col naming the property, never a library's message,
 * a stack overflow or a warning on stderr, and never a value that is not JSON.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FsRepoReader } from './fs-repo-reader.js';
import { loadRepo } from './load-repo.js';
import { MAX_DEPTH } from './parse-yaml-file.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'flagops-yaml-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let count = 0;
/** Validates a repository of the given files: its errors as `validate` prints them, and its entities. */
async function validate(files: Record<string, string>): Promise<{ errors: string[]; entities: Record<string, unknown> }> {
  const dir = join(root, `r${count++}`);
  for (const [path, text] of Object.entries({ 'flagops.yaml': '', ...files })) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const loaded = await loadRepo(new FsRepoReader(dir));
  return {
    errors: loaded.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.file}:${d.line}:${d.column} ${d.property ? `${d.property}: ` : ''}${d.message}`),
    entities: Object.fromEntries(loaded.entities.map((e) => [e.file, e.data])),
  };
}

const config = (...lines: string[]): Record<string, string> => ({ 'dynamic_configs/cfg.yaml': ['id: cfg', 'name: Config', ...lines, ''].join('\n') });
const gate = (...lines: string[]): Record<string, string> => ({ 'gates/gate.yaml': ['id: gate', 'name: Gate', ...lines, ''].join('\n') });

describe('YAML that holds no JSON value', () => {
  it('refuses every tag but the JSON ones, at the tag, naming the property', async () => {
    const { errors } = await validate(config('defaultValue: {bin: !!binary aGVsbG8=, set: !!set {a, b}, omap: !!omap [a: 1], ts: !!timestamp 2025-01-01, own: !local x, any: ! 12, ok: !!str 12}'));
    expect(errors).toEqual([
      'dynamic_configs/cfg.yaml:3:21 defaultValue.bin: tag !!binary is not supported: entity files hold JSON values',
      'dynamic_configs/cfg.yaml:3:45 defaultValue.set: tag !!set is not supported: entity files hold JSON values',
      'dynamic_configs/cfg.yaml:3:65 defaultValue.omap: tag !!omap is not supported: entity files hold JSON values',
      'dynamic_configs/cfg.yaml:3:84 defaultValue.ts: tag !!timestamp is not supported: entity files hold JSON values',
      'dynamic_configs/cfg.yaml:3:113 defaultValue.own: tag !local is not supported: entity files hold JSON values',
      'dynamic_configs/cfg.yaml:3:128 defaultValue.any: tag ! is not supported: entity files hold JSON values',
    ]);
  });

  it('refuses a JSON tag that does not fit its value (`yaml` would read it as a string)', async () => {
    expect((await validate(config('defaultValue:', '  n: !!int abc', '  f: !!float 1'))).errors).toEqual([
      'dynamic_configs/cfg.yaml:4:6 defaultValue.n: tag !!int does not fit its value',
      'dynamic_configs/cfg.yaml:5:6 defaultValue.f: tag !!float does not fit its value',
    ]);
  });

  it('keeps the JSON tags', async () => {
    const { errors, entities } = await validate(config('defaultValue: !!map {n: !!str 12, f: !!float 1.5, b: !!bool true, z: !!null ~, s: !!seq [!!int 3]}'));
    expect(errors).toEqual([]);
    expect(entities['dynamic_configs/cfg.yaml']).toMatchObject({ defaultValue: { n: '12', f: 1.5, b: true, z: null, s: [3] } });
  });

  it('refuses a key that is a collection, where it is, without a warning on stderr', async () => {
    const warn = vi.spyOn(process, 'emitWarning');
    try {
      expect((await validate(gate('description: x', '? [a, b]', ': c'))).errors).toEqual(['gates/gate.yaml:4:3 a key must be a string, not a sequence: entity files hold JSON objects']);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('refuses a __proto__ key, which zod would turn into the prototype of the value', async () => {
    expect((await validate(config('defaultValue:', '  a: 1', '  __proto__: {x: 1}'))).errors).toEqual([
      "dynamic_configs/cfg.yaml:5:3 defaultValue.__proto__: key __proto__ is not supported: JavaScript readers of the value would drop it or take it as the object's prototype",
    ]);
  });

  it('reads 1e400 as `yaml` does (Infinity), for the finite-number rule to refuse', async () => {
    expect((await validate(gate('rules:', '  - name: all', '    passPercentage: 1e400', '    conditions: [{ type: public }]'))).errors).toEqual([
      'gates/gate.yaml:5:21 rules[0].passPercentage: must be a finite number (Infinity and NaN are not JSON)',
    ]);
  });
});

describe('keys', () => {
  it('names the property of a duplicate key and where it was first set', async () => {
    expect((await validate(gate('rules:', '  - name: a', '    passPercentage: 1', '    passPercentage: 2', '    conditions: []'))).errors).toEqual([
      'gates/gate.yaml:6:5 rules[0].passPercentage: duplicate key: already set at 5:5',
    ]);
  });

  it('refuses keys that are the same JSON key (1 and "1"), which would silently keep the last', async () => {
    expect((await validate(config('defaultValue: {1: a, "1": b}'))).errors).toEqual(['dynamic_configs/cfg.yaml:3:22 defaultValue.1: duplicate key: "1" is the JSON key "1", as 1 at 3:16 is']);
  });

  it("refuses a duplicate key in a JSON5 block at its line and column in the file, without the block's own position in the message", async () => {
    expect((await validate(config('defaultValueJson5: |', '  { price: 100, // cents', "    'price': 0 }"))).errors).toEqual([
      'dynamic_configs/cfg.yaml:5:5 defaultValueJson5: has the key "price" twice (keys are unique, as in YAML)',
    ]);
  });

  it('places a key holding a dot or a bracket at the key, not at what its pieces would name', async () => {
    const { errors } = await validate(gate('rules:', '  - name: a', '    passPercentage: 1', '    conditions: []', '    "x[0]": 1', 'reviewSettings.requiredReview: true'));
    expect(errors).toEqual(['gates/gate.yaml:7:5 rules[0].x[0]: is not a known field', 'gates/gate.yaml:8:1 reviewSettings.requiredReview: is not a known field']);
  });
});

describe('aliases', () => {
  it('reports an alias that names no anchor at the alias', async () => {
    expect((await validate(gate('description: *nope'))).errors).toEqual(['gates/gate.yaml:3:14 description: alias *nope names no anchor (&nope must be set before the alias)']);
  });

  it('reads an alias of an anchor set before it', async () => {
    const { errors, entities } = await validate(gate('description: &d Dark', 'tags: [*d]'));
    expect(errors).toEqual([]);
    expect(entities['gates/gate.yaml']).toMatchObject({ description: 'Dark', tags: ['Dark'] });
  });
});

describe('files that are not one YAML document', () => {
  it('names a second document and where it starts', async () => {
    expect((await validate(gate('---', 'id: other'))).errors).toEqual(['gates/gate.yaml:3:1 a file holds one YAML document; found a second at 3:1']);
  });

  it('says once that a file with NUL bytes is binary', async () => {
    expect((await validate({ 'gates/gate.yaml': `id: gate\nname: Gate\n${'\0\x01\x02 garbage \x7f'.repeat(200)}` })).errors).toEqual(['gates/gate.yaml:1:1 is a binary file, not YAML']);
  });

  it('refuses YAML 1.1, whose `yes` is true and whose dates are not strings', async () => {
    expect((await validate({ 'gates/gate.yaml': '%YAML 1.1\n---\nid: gate\nname: Gate\ndescription: 2025-01-01\n' })).errors).toEqual([
      'gates/gate.yaml:1:1 YAML 1.1 (%YAML 1.1) is not supported: entity files are YAML 1.2, whose values are JSON values',
    ]);
  });

  it('cuts short a message of `yaml` that quotes a long stretch of the file', async () => {
    // U+001F is a marker of `yaml`'s lexer: the text after it is one token, quoted whole in the message.
    const { errors } = await validate({ 'gates/gate.yaml': `x\n#\n${'y'.repeat(200)}\x1f${'z'.repeat(5000)}\n` });
    expect(errors).toEqual([expect.stringMatching(/^gates\/gate\.yaml:3:1 Unexpected scalar token in YAML stream: "y{100,}…$/)]);
    expect(errors[0]?.length).toBeLessThan(200);
  });
});

describe('positions', () => {
  it('counts no byte-order mark in line 1', async () => {
    expect((await validate({ 'gates/gate.yaml': '\ufeffid: 5\nname: Gate\n' })).errors).toEqual(['gates/gate.yaml:1:5 id: expected string, received number']);
  });

  it('reads old-Mac line ends (\\r) as line breaks', async () => {
    expect((await validate({ 'gates/gate.yaml': 'name: Gate\rid: gate\rtags: [a, 5]' })).errors).toEqual(['gates/gate.yaml:3:11 tags[1]: expected string, received number']);
  });
});

describe('nesting', () => {
  const TOO_DEEP = `nests deeper than ${MAX_DEPTH} levels of mappings and sequences`;

  it('refuses flow collections nested past the limit where they pass it, however deep', async () => {
    // 900 levels overflowed `yaml`'s composer; a hundred thousand are refused before it is parsed.
    for (const levels of [900, 100_000]) {
      expect((await validate(config(`defaultValue: ${'['.repeat(levels)}${']'.repeat(levels)}`))).errors).toEqual([`dynamic_configs/cfg.yaml:3:${15 + MAX_DEPTH - 1} ${TOO_DEEP}`]);
    }
  });

  it('refuses block sequences nested on one line past the limit', async () => {
    expect((await validate(gate('tags:', `  ${'- '.repeat(3000)}x`))).errors).toEqual([`gates/gate.yaml:4:${3 + 2 * (MAX_DEPTH - 1)} ${TOO_DEEP}`]);
  });

  it('refuses mappings indented past the limit', async () => {
    let text = 'tags:\n';
    for (let level = 1; level <= 1400; level++) text += `${' '.repeat(level)}k:\n`;
    expect((await validate(gate(text))).errors).toEqual([`gates/gate.yaml:${3 + MAX_DEPTH}:${MAX_DEPTH + 1} ${TOO_DEEP}`]);
  });
});
