import { h, options } from 'preact';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installVisibleControls } from './visible-controls.js';

let saved: typeof options.vnode;
beforeEach(() => {
  saved = options.vnode;
  installVisibleControls();
});
afterEach(() => {
  options.vnode = saved;
});

const BIDI = 'abc\u202Eexe.txt';

describe('installVisibleControls', () => {
  it('shows bidirectional and other control characters escaped in every element text and title', () => {
    expect(h('td', null, BIDI).props.children).toBe('abc\\u202eexe.txt');
    expect(h('p', { title: `x\u2066y` }, 'review by ', `m\u0007@x`, ['nested ', `\u202Dz`]).props).toMatchObject({
      title: 'x\\u2066y',
      children: ['review by ', 'm\\x07@x', ['nested ', '\\u202dz']],
    });
    // Tabs and newlines are text, not controls to hide.
    expect(h('pre', null, 'a\tb\nc').props.children).toBe('a\tb\nc');
  });

  it('leaves what form fields hold as it is, so editing keeps the stored text', () => {
    expect(h('input', { value: BIDI }).props).toMatchObject({ value: BIDI });
    expect(h('textarea', { value: BIDI }, BIDI).props).toMatchObject({ value: BIDI, children: BIDI });
  });
});
