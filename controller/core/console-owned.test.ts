import { describe, expect, it } from 'vitest';
import { ownedPathsInTags } from '../../schemas/repo-config.js';
import { consoleOwnsTags, keepOwned, ownedPathsOf, parseOwnedPath } from './console-owned.js';

describe('parseOwnedPath', () => {
  it('reads fields joined by dots, [*] after a list', () => {
    expect(parseOwnedPath('isEnabled')).toEqual([{ key: 'isEnabled', each: false }]);
    expect(parseOwnedPath('rules[*].passPercentage')).toEqual([
      { key: 'rules', each: true },
      { key: 'passPercentage', each: false },
    ]);
    expect(parseOwnedPath('owner.ownerEmail')).toEqual([
      { key: 'owner', each: false },
      { key: 'ownerEmail', each: false },
    ]);
  });

  it('refuses what is no field path', () => {
    for (const bad of ['', 'rules[0].passPercentage', 'rules[*]x', 'a..b', '.a', 'a.', 'rules[name=x]', '1st']) expect(parseOwnedPath(bad), bad).toBeUndefined();
  });
});

describe('ownedPathsOf', () => {
  it("adds an entity's own paths to its kind's, each once", () => {
    const ownership = { gates: ['isEnabled', 'rules[*].passPercentage'], 'gates/kill': ['isEnabled', 'description'], dynamic_configs: ['isEnabled'] };
    expect(ownedPathsOf(ownership, 'gates', 'kill')).toEqual(['isEnabled', 'rules[*].passPercentage', 'description']);
    expect(ownedPathsOf(ownership, 'gates', 'other')).toEqual(['isEnabled', 'rules[*].passPercentage']);
    expect(ownedPathsOf(ownership, 'segments', 'staff')).toEqual([]);
  });

  it('names them in tags and reads them back, ignoring other tags', () => {
    const tags = ['team-a', ...consoleOwnsTags(['isEnabled', 'rules[*].passPercentage'])];
    expect(tags).toEqual(['team-a', 'flagops-console-owns:isEnabled', 'flagops-console-owns:rules[*].passPercentage']);
    expect(ownedPathsInTags([...tags, 42])).toEqual(['isEnabled', 'rules[*].passPercentage']);
  });
});

describe('keepOwned', () => {
  const file = {
    id: 'g',
    isEnabled: true,
    description: 'from git',
    rules: [
      { name: 'staff', passPercentage: 100, conditions: [] },
      { name: 'ramp', passPercentage: 10, conditions: [{ type: 'public' }] },
      { name: 'new', passPercentage: 5, conditions: [] },
    ],
  };
  const live = {
    id: 'g',
    isEnabled: false,
    description: 'edited',
    rules: [
      { id: 'r2', name: 'ramp', passPercentage: 40, conditions: [] },
      { id: 'r1', name: 'staff', passPercentage: 50, conditions: [] },
    ],
  };

  it("takes the console's value of a top-level field, and leaves the rest the file's", () => {
    expect(keepOwned(file, live, ['isEnabled'])).toEqual({ ...file, isEnabled: false });
  });

  it('takes each matching rule\'s passPercentage by name; a rule the console lacks keeps the file\'s (a create)', () => {
    const kept = keepOwned(file, live, ['rules[*].passPercentage']);
    expect(kept['rules']).toEqual([
      { name: 'staff', passPercentage: 50, conditions: [] },
      { name: 'ramp', passPercentage: 40, conditions: [{ type: 'public' }] },
      { name: 'new', passPercentage: 5, conditions: [] },
    ]);
    expect(file.rules[0]?.passPercentage).toBe(100);
  });

  it('matches unnamed items by position when the lengths agree, and leaves them when not', () => {
    const desired = { rules: [{ passPercentage: 1 }, { passPercentage: 2 }] };
    expect(keepOwned(desired, { rules: [{ passPercentage: 7 }, { passPercentage: 8 }] }, ['rules[*].passPercentage'])).toEqual({ rules: [{ passPercentage: 7 }, { passPercentage: 8 }] });
    expect(keepOwned(desired, { rules: [{ passPercentage: 7 }] }, ['rules[*].passPercentage'])).toEqual(desired);
  });

  it("never adds a field the file leaves out, and drops one the console lacks", () => {
    expect(keepOwned({ id: 'g' }, live, ['isEnabled'])).toEqual({ id: 'g' });
    expect(keepOwned({ id: 'g', isEnabled: true }, { id: 'g' }, ['isEnabled'])).toEqual({ id: 'g' });
    expect(keepOwned({ owner: { ownerEmail: 'a@x' } }, { owner: { ownerEmail: 'b@x' } }, ['owner.ownerEmail'])).toEqual({ owner: { ownerEmail: 'b@x' } });
  });

  it('returns the desired entity itself when the console owns nothing', () => {
    expect(keepOwned(file, live, [])).toBe(file);
  });
});
