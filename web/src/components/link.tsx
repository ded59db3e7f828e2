import type { ComponentChildren, JSX } from 'preact';
import { onLinkClick } from '../router.js';

/** An ordinary link that moves within the console without a reload. */
export function Link(props: { href: string; children: ComponentChildren } & Omit<JSX.HTMLAttributes<HTMLAnchorElement>, 'href' | 'onClick'>) {
  const { href, children, ...rest } = props;
  return (
    <a href={href} onClick={onLinkClick} {...rest}>
      {children}
    </a>
  );
}
