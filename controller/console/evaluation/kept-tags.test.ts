import { describe, expect, it } from 'vitest';
import { KeptTags } from './kept-tags.js';

describe('KeptTags', () => {
  it('keeps tags by text, and replaces a tag in place', () => {
    const tags = new KeptTags();
    tags.set('a', '"1"');
    tags.set('a', '"2"');
    expect([tags.get('a'), tags.size]).toEqual(['"2"', 1]);
  });

  it('starts over past its number of entries', () => {
    const tags = new KeptTags(2, 1000);
    tags.set('a', '"1"');
    tags.set('b', '"2"');
    tags.set('c', '"3"');
    expect([tags.get('a'), tags.get('c'), tags.size]).toEqual([undefined, '"3"', 1]);
  });

  it('starts over past the characters its keys may hold together, and never keeps a key above them', () => {
    const tags = new KeptTags(100, 10);
    tags.set('x'.repeat(6), '"1"');
    tags.set('y'.repeat(6), '"2"');
    expect([tags.get('x'.repeat(6)), tags.get('y'.repeat(6))]).toEqual([undefined, '"2"']);
    tags.set('z'.repeat(11), '"3"');
    expect([tags.get('z'.repeat(11)), tags.size]).toEqual([undefined, 1]);
  });
});
