import { describe, expect, it } from 'vitest';
import { checkJson5Twin } from './json5-twin.js';

describe('checkJson5Twin: prototype keys', () => {
  it('refuses a __proto__ key in the text, as a body or a YAML file refuses it', () => {
    expect(checkJson5Twin(undefined, '{ __proto__: { polluted: 1 }, a: 1 }', 'defaultValue', 'defaultValueJson5').errors).toEqual([
      { property: 'defaultValueJson5', errorMessage: 'has the key "__proto__", which is refused: JavaScript would take it for an object prototype' },
    ]);
  });

  it('names where a nested one sits, and refuses constructor.prototype too', () => {
    expect(checkJson5Twin(undefined, '{ a: [{ "__proto__": 1 }] }', 'returnValue', 'returnValueJson5').errors[0]?.errorMessage).toBe(
      'has the key "__proto__" at a[0].__proto__, which is refused: JavaScript would take it for an object prototype',
    );
    expect(checkJson5Twin(undefined, '{ constructor: { prototype: {} } }', 'defaultValue', 'defaultValueJson5').errors[0]?.errorMessage).toContain('"constructor.prototype"');
  });

  it('keeps keys that only resemble one', () => {
    expect(checkJson5Twin(undefined, '{ proto: 1, constructor: 2, prototype: 3 }', 'defaultValue', 'defaultValueJson5')).toEqual({ value: { proto: 1, constructor: 2, prototype: 3 }, errors: [] });
  });
});
