import { options, type VNode } from 'preact';
import { escapeControl } from '../../schemas/escape-control.js';

/** Text children as shown: control and bidirectional characters escaped (`\u202e`), nested lists too. */
export function visibleText(children: unknown): unknown {
  if (typeof children === 'string') return escapeControl(children);
  if (Array.isArray(children)) return children.map(visibleText);
  return children;
}

/**
 * Makes every text the console renders show control and bidirectional characters escaped, as the
 * CLI and the bridge do: "abc\u202Eexe.txt" must not read as "abctxt.exe" on a review page. It runs
 * on each element as it is created, so no page can forget it; what form fields hold (their `value`)
 * is left as it is, so editing keeps the stored text.
 */
export function installVisibleControls(): void {
  const previous = options.vnode;
  options.vnode = (vnode: VNode) => {
    if (typeof vnode.type === 'string') {
      const props = vnode.props as { children?: unknown; title?: unknown };
      if (props.children !== undefined && vnode.type !== 'textarea') props.children = visibleText(props.children);
      if (typeof props.title === 'string') props.title = escapeControl(props.title);
    }
    previous?.(vnode);
  };
}
