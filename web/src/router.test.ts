import { describe, expect, it } from 'vitest';
import { match } from './router.js';

describe('match', () => {
  it('captures path parameters, decoded, and needs every segment', () => {
    expect(match('/', '/')).toEqual({});
    expect(match('/entities/:folder', '/entities/gates')).toEqual({ folder: 'gates' });
    expect(match('/entities/:folder', '/entities/gates/')).toEqual({ folder: 'gates' });
    expect(match('/entities/:folder/:id', '/entities/assignment_sources/warehouse%20assignments')).toEqual({ folder: 'assignment_sources', id: 'warehouse assignments' });
    expect(match('/entities/:folder/:id', '/entities/gates')).toBeUndefined();
    expect(match('/entities/:folder/:id', '/entities/gates/a/edit')).toBeUndefined();
    expect(match('/reviews/:reviewID', '/reviews/')).toBeUndefined();
    expect(match('/reviews/:reviewID', '/audit/x')).toBeUndefined();
  });
});
