import { describe, expect, it } from 'vitest';
import { appliedCommitOf } from './applied-commit.js';

const sha = '0123456789abcdef0123456789abcdef01234567';

describe('appliedCommitOf', () => {
  it("reads the commit from apply's review descriptions, with or without uncommitted edits on top", () => {
    expect(appliedCommitOf(`flagops apply: update gates/checkout (plan 0a1b2c3d4e5f, commit ${sha})`)).toBe(sha);
    expect(appliedCommitOf(`flagops apply: create dynamic_configs/pricing (plan 0a1b2c3d4e5f, commit ${sha}+dirty)`)).toBe(sha);
    expect(appliedCommitOf(`flagops apply: update segments/staff (plan 0a1b2c3d4e5f, change 9f8e7d6c5b4a, commit ${sha})`)).toBe(sha);
    expect(appliedCommitOf(`flagops apply: drift experiments/e.x-1 (plan 0a1b2c3d4e5f, commit ${sha.slice(0, 7)})\n`)).toBe(sha.slice(0, 7));
  });

  it('finds none in descriptions apply did not write, or wrote without a commit', () => {
    expect(appliedCommitOf('flagops apply: update gates/checkout (plan 0a1b2c3d4e5f)')).toBeUndefined();
    expect(appliedCommitOf(`Raise the ramp (plan 0a1b2c3d4e5f, commit ${sha})`)).toBeUndefined();
    expect(appliedCommitOf(`hotfix\nflagops apply: update gates/x (plan 0a1b2c3d4e5f, commit ${sha})`)).toBeUndefined();
    expect(appliedCommitOf('flagops apply: update gates/x (plan 0a1b2c3d4e5f, commit --all)')).toBeUndefined();
    expect(appliedCommitOf('flagops apply: update gates/x (plan 0a1b2c3d4e5f, commit 0123)')).toBeUndefined();
    expect(appliedCommitOf('')).toBeUndefined();
  });
});
