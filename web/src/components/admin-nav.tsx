import { Link } from './link.js';

export function AdminNav({ current }: { current: '/admin' | '/admin/keys' | '/admin/roles' }) {
  const items = [
    ['/admin', 'Settings'],
    ['/admin/keys', 'Keys'],
    ['/admin/roles', 'Roles'],
  ] as const;
  return (
    <nav aria-label="Admin" class="subnav">
      <ul>
        {items.map(([href, label]) => (
          <li key={href}>
            <Link href={href} aria-current={href === current ? 'page' : undefined}>
              {label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
