import { PROMPT_DEFAULTS, PromptCreateSchema, PromptPatchSchema, PromptSchema } from '../../../schemas/prompt.js';
import { holdoutIDsFor } from './holdout-ids.js';
import type { KindDef } from './kind-def.js';
import { hasTag } from './list-filters.js';

/**
 * AI configs (prompts in paths). Keyed by name: the response's `id` is the name, the item path
 * /prompts/{name}. Create (`POST /prompts`), list, read and patch; no full update and no delete, as in
 * the reference.
 */
export const promptKind: KindDef = {
  kind: 'prompt',
  path: 'prompts',
  label: 'AI config',
  tag: 'AI configs',
  idField: 'name',
  schemas: { create: PromptCreateSchema, patch: PromptPatchSchema, response: PromptSchema },
  defaults: PROMPT_DEFAULTS,
  initial: () => ({ idType: 'userID' }),
  prepare: (prompt) => ({ id: prompt['name'], ...prompt }),
  decorate: (prompt, lookup) => ({ holdoutIDs: holdoutIDsFor('prompt', prompt, lookup) }),
  filters: { tags: hasTag },
  deletable: false,
};
