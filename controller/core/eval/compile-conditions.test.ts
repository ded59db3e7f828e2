import { describe, expect, it } from 'vitest';
import { compileCondition, UNSUPPORTED_PREFIX } from './compile-conditions.js';

const compiled = (condition: Record<string, unknown>, idType = 'userID') => {
  const { type, field, operator, targetValue, idType: unit } = compileCondition(condition, idType);
  return { type, field, operator, targetValue, idType: unit };
};

describe('compileCondition', () => {
  it.each([
    [{ type: 'email', operator: 'str_ends_with_any', targetValue: ['@acme.example'] }, { type: 'user_field', field: 'email', operator: 'str_ends_with_any', targetValue: ['@acme.example'] }],
    [{ type: 'user_id', operator: 'any', targetValue: 'u1' }, { type: 'user_field', field: 'userID', operator: 'any', targetValue: ['u1'] }],
    [{ type: 'country', operator: 'any', targetValue: ['DE'] }, { type: 'ip_based', field: 'country', operator: 'any', targetValue: ['DE'] }],
    [{ type: 'os_name', operator: 'any', targetValue: ['iOS'] }, { type: 'ua_based', field: 'os_name', operator: 'any', targetValue: ['iOS'] }],
    [{ type: 'app_version', operator: 'version_gte', targetValue: ['5.2.0'] }, { type: 'user_field', field: 'appVersion', operator: 'version_gte', targetValue: '5.2.0' }],
    [{ type: 'custom_field', field: 'ltv', operator: 'GT', targetValue: 1000 }, { type: 'user_field', field: 'ltv', operator: 'gt', targetValue: 1000 }],
    [{ type: 'environment_tier', operator: 'any', targetValue: ['staging'] }, { type: 'environment_field', field: 'tier', operator: 'any', targetValue: ['staging'] }],
    [{ type: 'time', operator: 'after', targetValue: 1700000000000 }, { type: 'current_time', field: null, operator: 'after', targetValue: 1700000000000 }],
    [{ type: 'passes_segment', targetValue: ['staff'] }, { type: 'pass_gate', field: null, operator: null, targetValue: 'segment:staff' }],
    [{ type: 'fails_gate', targetValue: ['a', 'b'] }, { type: 'multi_fail_gate', field: null, operator: null, targetValue: ['a', 'b'] }],
  ])('%j', (condition, expected) => {
    expect(compiled(condition)).toMatchObject(expected);
  });

  it('a unit_id condition reads its customID, else the entity idType', () => {
    expect(compiled({ type: 'unit_id', operator: 'any', targetValue: ['acme'], customID: 'companyID' }).idType).toBe('companyID');
    expect(compiled({ type: 'unit_id', operator: 'any', targetValue: ['acme'] }, 'stableID').idType).toBe('stableID');
  });

  it.each([
    [{ type: 'some_future_type', operator: 'any', targetValue: ['x'] }],
    [{ type: 'email', operator: 'sounds_like', targetValue: ['x'] }],
    [{ type: 'email', targetValue: ['x'] }],
    [{ type: 'custom_field', operator: 'any', targetValue: ['x'] }],
    [{ type: 'passes_gate', targetValue: [] }],
  ])('what the SDK cannot evaluate faithfully gets an unsupported type: %j', (condition) => {
    expect(compiled(condition).type.startsWith(UNSUPPORTED_PREFIX)).toBe(true);
  });
});
