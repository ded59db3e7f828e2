import { ENTITY_SCHEMAS, type EntitySchemaEntry } from '../../schemas/index.js';
import { PruneSettingsSchema } from '../../schemas/repo-config.js';

/** How the console shows one entity kind; labels, paths and ids come from the kind's declaration. */
export interface KindView {
  entry: EntitySchemaEntry;
  kind: string;
  /** URL segment of the console's pages and the config-repo folder. */
  folder: string;
  label: string;
  plural: string;
  /** List path under /console/v1. */
  listPath: string;
  /** Item path under /console/v1 (append /{id}). */
  itemPath: string;
  reviewable: boolean;
  /** Kinds whose fields the console edits in a form and submits as a review. */
  editable: boolean;
}

/** Menu order: what people look at most first; a kind not named here follows, in declaration order. */
const MENU_ORDER = ['gate', 'dynamic_config', 'segment', 'experiment', 'layer', 'holdout', 'prompt', 'assignment_source'];

const menuRank = (entry: EntitySchemaEntry): number => {
  const rank = MENU_ORDER.indexOf(entry.kind);
  return rank < 0 ? MENU_ORDER.length : rank;
};

export const KINDS: readonly KindView[] = [...ENTITY_SCHEMAS]
  .sort((a, b) => menuRank(a) - menuRank(b))
  .map((entry) => {
    const listPath = entry.apiPath ?? entry.folder;
    return {
      entry,
      kind: entry.kind,
      folder: entry.folder,
      label: entry.label,
      plural: entry.plural,
      listPath,
      itemPath: entry.itemPath ?? listPath,
      reviewable: entry.reviewable === true,
      editable: entry.kind === 'gate' || entry.kind === 'dynamic_config',
    };
  });

export function kindByFolder(folder: string): KindView | undefined {
  return KINDS.find((k) => k.folder === folder);
}

export function kindByName(kind: string): KindView | undefined {
  return KINDS.find((k) => k.kind === kind);
}

/** The entity's identifying value (its id, or name for assignment sources and AI configs). */
export function entityKey(view: KindView, entity: Record<string, unknown>): string {
  return String(entity[view.entry.idField] ?? entity['id'] ?? entity['name'] ?? '');
}

/** The tag that marks entities the config repository manages: flagops.yaml's `prune.managedTag` default. */
export const MANAGED_TAG: string = PruneSettingsSchema.parse({}).managedTag;
