import { entryForFolder } from '../../schemas/entity-file.js';
import type { Plan } from '../core/plan.js';
import type { Diagnostic, Issue } from '../core/repo-entity.js';
import { parseYamlFile, type ParsedYamlFile } from '../source/parse-yaml-file.js';
import type { RepoReader } from '../source/repo-reader.js';

/**
 * The plan's rejections and warnings as diagnostics of the changed files, the way validate reports
 * everything: at the changed field (`rules[1].passPercentage`) when the verdict names one, else at the
 * entity's id; a deleted file, which the working tree no longer has, at its first line.
 */
export async function policyDiagnostics(plan: Plan, reader: RepoReader): Promise<Diagnostic[]> {
  const flagged = plan.changes.filter((c) => (c.policies ?? []).some((v) => v.verdict !== 'pass'));
  const present = new Set((await reader.list()).files);
  const paths = [...new Set(flagged.flatMap((c) => (c.file !== null && c.action !== 'delete' && present.has(c.file) ? [c.file] : [])))];
  const texts = paths.length > 0 ? await reader.read(paths) : new Map<string, string>();
  const parsed = new Map<string, ParsedYamlFile>();
  const diagnostics: Diagnostic[] = [];
  for (const change of flagged) {
    const file = change.file ?? `${change.kind}/${change.id}.yaml`;
    const text = change.action === 'delete' ? undefined : texts.get(file);
    let yaml = parsed.get(file);
    if (yaml === undefined && text !== undefined) parsed.set(file, (yaml = parseYamlFile(file, text)));
    for (const v of change.policies ?? []) {
      if (v.verdict === 'pass') continue;
      const issue: Issue = { file, property: v.property ?? '', message: `policy ${v.policy}: ${v.message}`, code: 'policy', severity: v.verdict === 'reject' ? 'error' : 'warning' };
      if (yaml === undefined) {
        diagnostics.push({ ...issue, property: '', line: 1, column: 1 });
        continue;
      }
      // A verdict on the whole entity is placed at its id, the line that names it.
      const placed = yaml.place(v.property === undefined ? { ...issue, property: entryForFolder(change.kind)?.idField ?? '', at: 'key' } : issue);
      diagnostics.push({ ...placed, property: v.property ?? '' });
    }
  }
  return diagnostics;
}
