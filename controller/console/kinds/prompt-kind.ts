import { holdoutIDsFor } from './holdout-ids.js';
import { declaredKind } from './declared-kind.js';
import type { KindDef } from './kind-def.js';
import { hasTag } from './list-filters.js';

/**
 * AI configs (prompts in paths). Keyed by name: the response's `id` is the name, the item path
 * /prompts/{name}. Create (`POST /prompts`), list, read and patch; no full update and no delete, as in
 * the reference.
 */
export const promptKind: KindDef = declaredKind('prompt', {
  initial: () => ({ idType: 'userID' }),
  prepare: (prompt) => ({ id: prompt['name'], ...prompt }),
  decorate: (prompt, lookup) => ({ holdoutIDs: holdoutIDsFor('prompt', prompt, lookup) }),
  filters: { tags: hasTag },
});
