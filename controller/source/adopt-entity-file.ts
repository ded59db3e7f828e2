import { parseDocument } from 'yaml';
import { CONSOLE_OWNS_TAG_PREFIX } from '../../schemas/repo-config.js';
import { keepOwned } from '../core/console-owned.js';
import { exportable } from '../core/normalize.js';
import type { JsonObject } from '../core/repo-entity.js';
import type { EntitySchemaEntry } from '../../schemas/index.js';
import { adoptYaml } from './adopt-yaml.js';
import { formatEntityYaml } from './format-entity-yaml.js';

/**
 * An entity file rewritten to declare what the console holds (drift policy `adopt`): only the values
 * that differ change (adoptYaml), defaults the file spells out stay, the managed tag apply adds is not
 * written into a file that did not carry it (nor the tags naming console-owned fields), the file
 * keeps its own values of the fields the console owns (`owned`: they are what a create takes), and
 * the result is in the canonical form `flagops fmt` writes, so an adopted file passes `fmt --check`.
 */
export function adoptEntityFile(text: string, entry: EntitySchemaEntry, live: JsonObject, managedTag: string, owned: readonly string[] = []): string {
  const declared = parseDocument(text).toJS({ maxAliasCount: 100 }) as unknown;
  const file = typeof declared === 'object' && declared !== null && !Array.isArray(declared) ? (declared as JsonObject) : {};
  const wanted = keepOwned(exportable(entry, live), file, owned);
  const fileTags = Array.isArray(file['tags']) ? (file['tags'] as unknown[]) : [];
  const tags = wanted['tags'];
  const bookkeeping = (t: unknown): boolean => (t === managedTag || (typeof t === 'string' && t.startsWith(CONSOLE_OWNS_TAG_PREFIX))) && !fileTags.includes(t);
  if (Array.isArray(tags) && tags.some(bookkeeping)) {
    const rest = tags.filter((t) => !bookkeeping(t));
    if (rest.length > 0) wanted['tags'] = rest;
    else delete wanted['tags'];
  }
  const defaults = entry.defaults;
  const adopted = adoptYaml(text, wanted, (key, node) => key in defaults && JSON.stringify((node as { toJSON?: () => unknown } | null)?.toJSON?.()) === JSON.stringify(defaults[key]));
  const formatted = formatEntityYaml(adopted, entry);
  return formatted.ok ? formatted.text : adopted;
}
