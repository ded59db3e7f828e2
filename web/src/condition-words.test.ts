import { describe, expect, it } from 'vitest';
import { conditionInWords } from './condition-words.js';

describe('conditionInWords', () => {
  it.each([
    [{ type: 'public' }, 'Everyone'],
    [{ type: 'email', operator: 'str_ends_with_any', targetValue: ['@acme.example'] }, 'Email ends with any of @acme.example'],
    [{ type: 'country', operator: 'any', targetValue: ['DE', 'FR'] }, 'Country is any of DE, FR'],
    [{ type: 'app_version', operator: 'version_gte', targetValue: '2.5.0' }, 'App version version ≥ 2.5.0'],
    [{ type: 'custom_field', field: 'plan', operator: 'any', targetValue: ['pro'] }, 'Custom field plan is any of pro'],
    [{ type: 'unit_id', customID: 'companyID', operator: 'any', targetValue: ['acme'] }, 'Unit ID (companyID) is any of acme'],
    [{ type: 'passes_segment', targetValue: ['beta_testers'] }, 'In segment beta_testers'],
    [{ type: 'fails_gate', targetValue: ['kill_switch'] }, 'Fails gate kill_switch'],
    [{ type: 'user_id', operator: 'any', targetValue: [] }, 'User ID is any of (nothing)'],
  ])('%j reads "%s"', (condition, words) => {
    expect(conditionInWords(condition)).toBe(words);
  });

  it('shows what it does not know as written, and long lists shortened', () => {
    expect(conditionInWords({ type: 'moon_phase', operator: 'waxing', targetValue: ['full'] })).toBe('moon_phase waxing full');
    expect(conditionInWords({ type: 'user_id', operator: 'any', targetValue: Array.from({ length: 10 }, (_, i) => `u${i}`) })).toBe('User ID is any of u0, u1, u2, u3, u4, u5, u6, u7 and 2 more');
  });
});
