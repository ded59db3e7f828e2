import { parseDocument } from 'yaml';
import { exportable } from '../core/normalize.js';
import type { JsonObject } from '../core/repo-entity.js';
import type { EntitySchemaEntry } from '../../schemas/index.js';
import { adoptYaml } from './adopt-yaml.js';
import { formatEntityYaml } from './format-entity-yaml.js';

/**
 * An entity file rewritten to declare what the console holds (drift policy `adopt`): only the values
 * that differ change (adoptYaml), defaults the file spells out stay, the managed tag apply adds is not
 * written into a file that did not carry it, and the result is in the canonical form `flagops fmt`
 * writes, so an adopted file passes `fmt --check`.
 */
export function adoptEntityFile(text: string, entry: EntitySchemaEntry, live: JsonObject, managedTag: string): string {
  const wanted = exportable(entry, live);
  const declared = parseDocument(text).toJS({ maxAliasCount: 100 }) as unknown;
  const fileTags = typeof declared === 'object' && declared !== null && Array.isArray((declared as JsonObject)['tags']) ? ((declared as JsonObject)['tags'] as unknown[]) : [];
  const tags = wanted['tags'];
  if (Array.isArray(tags) && tags.includes(managedTag) && !fileTags.includes(managedTag)) {
    const rest = tags.filter((t) => t !== managedTag);
    if (rest.length > 0) wanted['tags'] = rest;
    else delete wanted['tags'];
  }
  const defaults = entry.defaults;
  const adopted = adoptYaml(text, wanted, (key, node) => key in defaults && JSON.stringify((node as { toJSON?: () => unknown } | null)?.toJSON?.()) === JSON.stringify(defaults[key]));
  const formatted = formatEntityYaml(adopted, entry);
  return formatted.ok ? formatted.text : adopted;
}
