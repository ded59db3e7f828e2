import { REPO_CONFIG_FILE } from '../../schemas/repo-config.js';
import { escapeControl } from '../core/escape-control.js';
import type { LoadedRepo } from '../source/load-repo.js';

/** Files named in the warning; the rest are counted. */
const MAX_NAMED = 10;

/**
 * The base of a pull-request preview only has to parse as far as it can: it is history the pull
 * request cannot fix. But a base file that does not read or validate declares nothing, so its
 * entities would silently show as creates (or a removed one not at all): this names those files.
 * A file whose entity loaded despite an error (a broken reference) still counts as declared, and
 * flagops.yaml declares no entity.
 */
export function unreadBaseWarning(base: LoadedRepo): string | undefined {
  const loaded = new Set(base.entities.map((e) => e.file));
  const unread = [...new Set(base.diagnostics.filter((d) => d.severity === 'error' && d.file !== REPO_CONFIG_FILE && !loaded.has(d.file)).map((d) => d.file))];
  if (unread.length === 0) return undefined;
  const named = unread.slice(0, MAX_NAMED).map((file) => escapeControl(file, true));
  const more = unread.length > MAX_NAMED ? ` and ${unread.length - MAX_NAMED} more` : '';
  const one = unread.length === 1;
  return (
    `${unread.length} file${one ? '' : 's'} of the base ${escapeControl(base.label, true)} could not be read or ${one ? 'does' : 'do'} not validate: ${named.join(', ')}${more}. ` +
    `${one ? 'Its' : 'Their'} entities are treated as absent at the base, so a change to one shows as a create.`
  );
}
