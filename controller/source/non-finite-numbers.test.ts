/**
 * YAML spells Infinity and NaN `.inf` and `.nan`, JSON5 `Infinity` and `NaN`: neither is JSON, so an
 * entity file holding one is an error placed at file:line:col, never an entity with a number that
 * would reach the console as null.
 */
import { describe, expect, it } from 'vitest';
import { loadEntityFile } from './load-repo.js';

const errorsOf = (path: string, text: string) => {
  const { entity, diagnostics } = loadEntityFile(path, text);
  return { entity, errors: diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.file}:${d.line}:${d.column} ${d.property} ${d.message}`) };
};

describe('non-finite numbers in entity files', () => {
  it('YAML .inf in a default value', () => {
    const { entity, errors } = errorsOf('dynamic_configs/pricing.yaml', ['id: pricing', 'name: Pricing', 'defaultValue:', '  price: .inf', ''].join('\n'));
    expect(entity).toBeUndefined();
    expect(errors).toEqual(['dynamic_configs/pricing.yaml:4:10 defaultValue.price must be a finite number (Infinity and NaN are not JSON)']);
  });

  it("YAML -.inf in a rule's return value and .nan in a layer parameter", () => {
    const config = ['id: pricing', 'name: Pricing', 'rules:', '  - name: beta', '    passPercentage: 10', '    conditions: [{ type: public }]', '    returnValue: { price: -.inf }', ''].join('\n');
    expect(errorsOf('dynamic_configs/pricing.yaml', config).errors).toEqual([
      'dynamic_configs/pricing.yaml:7:27 rules[0].returnValue.price must be a finite number (Infinity and NaN are not JSON)',
    ]);
    const layer = ['id: checkout', 'name: Checkout', 'parameters:', '  - name: discount', '    type: number', '    defaultValue: .nan', ''].join('\n');
    expect(errorsOf('layers/checkout.yaml', layer).errors).toEqual(['layers/checkout.yaml:6:19 parameters[0].defaultValue must be a finite number (Infinity and NaN are not JSON)']);
  });

  it('YAML .inf where a plain number is expected', () => {
    const gate = ['id: checkout', 'name: Checkout', 'rules:', '  - name: all', '    passPercentage: .inf', '    conditions: [{ type: public }]', ''].join('\n');
    expect(errorsOf('gates/checkout.yaml', gate).errors).toEqual(['gates/checkout.yaml:5:21 rules[0].passPercentage must be a finite number (Infinity and NaN are not JSON)']);
  });

  it('JSON5 Infinity in a block names the block and the place in its value', () => {
    const text = ['id: pricing', 'name: Pricing', 'defaultValueJson5: |', '  {', '    price: Infinity, // cents', '  }', ''].join('\n');
    expect(errorsOf('dynamic_configs/pricing.yaml', text).errors).toEqual(['dynamic_configs/pricing.yaml:3:20 defaultValueJson5 price must be a finite number (Infinity and NaN are not JSON)']);
  });
});
