import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { didYouMean } from './did-you-mean.js';
import type { Issue, RepoEntity } from './repo-entity.js';

/**
 * `drift.entities` of flagops.yaml names entities as `<folder>/<id>`. A key whose folder is no kind
 * folder never matches (an error); one naming an entity no file declares sets a policy for nothing,
 * most likely a typo (a warning: the file may come later). Either way the entity meant would silently
 * fall back to `drift.default`.
 */
export function driftEntityIssues(file: string, policies: Readonly<Record<string, string>>, declared: readonly RepoEntity[]): Issue[] {
  const folders = ENTITY_SCHEMAS.map((e) => e.folder);
  const names = declared.map((e) => `${e.folder}/${e.id}`);
  const known = new Set(names);
  const issues: Issue[] = [];
  for (const key of Object.keys(policies)) {
    const folder = key.slice(0, key.indexOf('/'));
    const property = `drift.entities.${key}`;
    if (!folders.includes(folder)) {
      const suggestion = didYouMean(folder, folders);
      issues.push({ file, property, message: `names the folder '${folder}', which is no kind folder (${suggestion ? `did you mean '${suggestion}'?` : folders.join(', ')})`, code: 'repo-config', severity: 'error', at: 'key' });
    } else if (!known.has(key)) {
      const suggestion = didYouMean(key, names.filter((n) => n.startsWith(`${folder}/`)));
      issues.push({ file, property, message: `names ${key}, which no file of the repository declares: the policy applies to nothing${suggestion ? ` (did you mean '${suggestion}'?)` : ''}`, code: 'repo-config', severity: 'warning', at: 'key' });
    }
  }
  return issues;
}
