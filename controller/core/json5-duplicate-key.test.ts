import { describe, expect, it } from 'vitest';
import { duplicateJson5Key } from './json5-duplicate-key.js';
import { checkJson5Twin } from './json5-twin.js';

describe('duplicateJson5Key', () => {
  it('finds a repeated key of an object, at its line and column', () => {
    expect(duplicateJson5Key('{\n  price: 100,\n  price: 0,\n}')).toEqual({ key: 'price', line: 3, column: 3 });
  });

  it('compares keys by the string they stand for: unquoted, quoted either way, escaped', () => {
    expect(duplicateJson5Key(`{ ab: 1, 'ab': 2 }`)).toMatchObject({ key: 'ab', column: 10 });
    expect(duplicateJson5Key(`{ "ab": 1, a\\u0062: 2 }`)).toMatchObject({ key: 'ab', column: 12 });
    expect(duplicateJson5Key(`{ 'a\\'b': 1, "a'b": 2 }`)).toMatchObject({ key: "a'b" });
  });

  it('keeps each object its own keys, nested or side by side in an array', () => {
    expect(duplicateJson5Key('{ a: { a: 1, b: [{ a: 1 }, { a: 2 }] }, b: 2 }')).toBeUndefined();
    expect(duplicateJson5Key('[{ a: 1 }, { a: 2, a: 3 }]')).toMatchObject({ key: 'a', column: 20 });
    expect(duplicateJson5Key('{ a: { b: 1 }, a: 2 }')).toMatchObject({ key: 'a', column: 16 });
  });

  it('is not misled by strings and comments holding keys, brackets or quotes', () => {
    expect(duplicateJson5Key(`{ a: "a: {", // a: 1, '\n  /* a: } */ b: 'it\\'s', c: [ "]", '"' ] }`)).toBeUndefined();
    expect(duplicateJson5Key(`{ a: "x",\n  /* two\n lines */ a: 1 }`)).toEqual({ key: 'a', line: 3, column: 11 });
  });

  it('refuses the repeated key in a JSON5 twin, placed as json5 places its errors', () => {
    expect(checkJson5Twin(undefined, '{ price: 100, price: 0 }', 'defaultValue', 'defaultValueJson5').errors).toEqual([
      { property: 'defaultValueJson5', errorMessage: 'has the key "price" twice (keys are unique, as in YAML) at 1:15' },
    ]);
  });
});
