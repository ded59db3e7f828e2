import { ENTITY_SCHEMAS, type EntitySchemaEntry } from '../../schemas/index.js';
import { PruneSettingsSchema } from '../../schemas/repo-config.js';
import { REVIEWABLE_KINDS } from '../../schemas/review.js';

/** How the console shows one entity kind; paths and ids come from the schema registry. */
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

const LABELS: Record<string, [string, string]> = {
  gate: ['Gate', 'Gates'],
  dynamic_config: ['Dynamic config', 'Dynamic configs'],
  segment: ['Segment', 'Segments'],
  experiment: ['Experiment', 'Experiments'],
  layer: ['Layer', 'Layers'],
  holdout: ['Holdout', 'Holdouts'],
  prompt: ['AI config', 'AI configs'],
  assignment_source: ['Assignment source', 'Assignment sources'],
};

/** Menu order: what people look at most first. */
const ORDER = ['gate', 'dynamic_config', 'segment', 'experiment', 'layer', 'holdout', 'prompt', 'assignment_source'];

export const KINDS: readonly KindView[] = ORDER.map((kind) => {
  const entry = ENTITY_SCHEMAS.find((e) => e.kind === kind);
  if (!entry) throw new Error(`No schema entry for ${kind}`);
  const [label, plural] = LABELS[kind] ?? [kind, `${kind}s`];
  const listPath = entry.apiPath ?? entry.folder;
  return {
    entry,
    kind,
    folder: entry.folder,
    label,
    plural,
    listPath,
    itemPath: entry.itemPath ?? listPath,
    reviewable: (REVIEWABLE_KINDS as readonly string[]).includes(kind),
    editable: kind === 'gate' || kind === 'dynamic_config',
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
