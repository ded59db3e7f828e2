import { FAILSAFE_SCHEMA, Type, type Schema } from 'js-yaml';

/*
 * YAML 1.2's core schema as `yaml` resolves plain scalars (its schema/core: the same regular
 * expressions, the same parseInt/parseFloat calls), for js-yaml to build exactly `yaml`'s values.
 * js-yaml's own CORE_SCHEMA differs on signed hex and octal (`-0x1F` is a number there, a string in
 * `yaml`), on signed fractions without a leading digit (`+.5`, `-.0`), on out-of-range exponents
 * (`1e400` stays a string there, is Infinity in `yaml`), on `_` in numbers and on `0b101`.
 */

const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT_OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

const nullType = new Type('tag:yaml.org,2002:null', { kind: 'scalar', resolve: (s: string) => NULL.test(s), construct: () => null });

const boolType = new Type('tag:yaml.org,2002:bool', { kind: 'scalar', resolve: (s: string) => BOOL.test(s), construct: (s: string) => s[0] === 't' || s[0] === 'T' });

const intType = new Type('tag:yaml.org,2002:int', {
  kind: 'scalar',
  resolve: (s: string) => INT_OCT.test(s) || INT.test(s) || INT_HEX.test(s),
  // `yaml` tries octal, then decimal, then hexadecimal; the three forms never overlap.
  construct: (s: string) => (INT_OCT.test(s) ? parseInt(s.substring(2), 8) : INT.test(s) ? parseInt(s, 10) : parseInt(s.substring(2), 16)),
});

const floatType = new Type('tag:yaml.org,2002:float', {
  kind: 'scalar',
  resolve: (s: string) => FLOAT_NAN.test(s) || FLOAT_EXP.test(s) || FLOAT.test(s),
  construct: (s: string) => {
    if (!FLOAT_NAN.test(s)) return parseFloat(s);
    if (s.slice(-3).toLowerCase() === 'nan') return NaN;
    return s[0] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  },
});

/** js-yaml's schema that resolves every plain scalar to the value `yaml`'s core schema gives it. */
export const JS_YAML_CORE_SCHEMA: Schema = FAILSAFE_SCHEMA.extend({ implicit: [nullType, boolType, intType, floatType] });
