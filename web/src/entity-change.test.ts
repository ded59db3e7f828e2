import { describe, expect, it } from 'vitest';
import { editorValue } from './components/value-editor.js';
import { changeOf, editableRules, type EditedFields } from './entity-change.js';

const gate = {
  id: 'checkout',
  name: 'checkout',
  description: 'New checkout',
  isEnabled: true,
  type: 'PERMANENT',
  tags: ['flagops-managed'],
  rules: [{ id: 'r1', name: 'ramp', passPercentage: 10, conditions: [{ type: 'public' }], pendingAutomatedRollouts: [] }],
  version: 3,
};

function edited(overrides: Partial<EditedFields> = {}): EditedFields {
  return { name: 'checkout', description: 'New checkout', isEnabled: true, type: 'PERMANENT', tags: ['flagops-managed'], rules: editorValue([{ id: 'r1', name: 'ramp', passPercentage: 10, conditions: [{ type: 'public' }] }]), ...overrides };
}

describe('changeOf', () => {
  it('sends only the fields that changed, without the rollout fields the console adds to rules', () => {
    expect(changeOf('gate', gate, edited())).toEqual({ change: {}, problems: [] });
    const rules = editorValue([{ id: 'r1', name: 'ramp', passPercentage: 50, conditions: [{ type: 'public' }] }], 'json5');
    expect(changeOf('gate', gate, edited({ rules, description: 'Half' }))).toEqual({
      change: { description: 'Half', rules: [{ id: 'r1', name: 'ramp', passPercentage: 50, conditions: [{ type: 'public' }] }] },
      problems: [],
    });
  });

  it('names the field that does not parse or breaks the schema', () => {
    expect(changeOf('gate', gate, edited({ rules: { format: 'yaml', text: '- name: [unclosed' } })).problems).toEqual([{ property: 'rules', errorMessage: expect.stringMatching(/^is not valid YAML: /) }]);
    expect(changeOf('gate', gate, edited({ rules: { format: 'json5', text: '[{' } })).problems[0]).toMatchObject({ property: 'rules', errorMessage: expect.stringMatching(/^is not valid JSON5: /) });
    const tooMuch = editorValue([{ name: 'ramp', passPercentage: 250, conditions: [] }]);
    expect(changeOf('gate', gate, edited({ rules: tooMuch, name: 'x' })).problems).toEqual([
      { property: 'name', errorMessage: 'must be 3 to 100 characters long' },
      { property: 'rules.0.passPercentage', errorMessage: 'must be between 0 and 100' },
    ]);
    expect(changeOf('gate', gate, edited({ type: 'FOREVER' })).problems).toEqual([{ property: 'type', errorMessage: expect.any(String) }]);
  });

  it("replaces a dynamic config's default value through the twin that was edited", () => {
    const config = { id: 'pricing', name: 'pricing', description: '', isEnabled: true, tags: [], rules: [], defaultValue: { price: 10 }, defaultValueJson5: '{ price: 10 }' };
    const base = { ...edited(), name: 'pricing', description: '', tags: [], rules: editorValue([]), type: undefined };
    expect(changeOf('dynamic_config', config, { ...base, defaultValue: { format: 'json5', text: '{ price: 10 }' } }).change).toEqual({});
    expect(changeOf('dynamic_config', config, { ...base, defaultValue: { format: 'json5', text: '{ price: 12 } // cents' } }).change).toEqual({ defaultValueJson5: '{ price: 12 } // cents' });
    expect(changeOf('dynamic_config', config, { ...base, defaultValue: editorValue({ price: 12 }) }).change).toEqual({ defaultValue: { price: 12 } });
    expect(changeOf('dynamic_config', config, { ...base, defaultValue: editorValue([1, 2]) }).problems).toEqual([{ property: 'defaultValue', errorMessage: expect.any(String) }]);
  });
});

describe('editableRules', () => {
  it('keeps a value written as JSON5 text as the text alone, in rules and their variants, so an edit is made once', () => {
    const rules = [
      { id: 'r1', name: 'cheap', passPercentage: 10, conditions: [], returnValue: { price: 5 }, returnValueJson5: '{ price: 5, // cents\n}', pendingAutomatedRollouts: [] },
      { id: 'r2', name: 'plain', passPercentage: 10, conditions: [], returnValue: { price: 6 }, variants: [{ name: 'v', passPercentage: 100, returnValue: { a: 1 }, returnValueJson5: '{a: 1}' }, { name: 'w', passPercentage: 0, returnValue: { b: 2 } }] },
    ];
    expect(editableRules(rules)).toEqual([
      { id: 'r1', name: 'cheap', passPercentage: 10, conditions: [], returnValueJson5: '{ price: 5, // cents\n}' },
      { id: 'r2', name: 'plain', passPercentage: 10, conditions: [], returnValue: { price: 6 }, variants: [{ name: 'v', passPercentage: 100, returnValueJson5: '{a: 1}' }, { name: 'w', passPercentage: 0, returnValue: { b: 2 } }] },
    ]);
  });
});
