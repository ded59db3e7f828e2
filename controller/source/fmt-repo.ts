import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { entryForFolder } from '../../schemas/entity-file.js';
import { InputError, type FieldError } from '../errors.js';
import { formatEntityYaml } from './format-entity-yaml.js';
import { FsRepoReader } from './fs-repo-reader.js';

export interface FmtReport {
  /** Entity files (repository-relative) whose text is, or was, not canonical. */
  changed: string[];
  checked: number;
}

/**
 * Formats every entity file of the repository in `dir` (see formatEntityYaml). With `check`, only
 * reports which files would change. A file that does not parse stops the whole run before anything
 * is written, with each problem at file:line:col.
 */
export async function fmtRepo(dir: string, options: { check: boolean; signal?: AbortSignal }): Promise<FmtReport> {
  const reader = new FsRepoReader(dir, undefined, { signal: options.signal });
  const listing = await reader.list();
  const files = listing.files.filter((path) => path.includes('/') && /\.ya?ml$/.test(path));
  const texts = await reader.read(files);
  const problems: FieldError[] = [];
  const rewrites: { path: string; text: string }[] = [];
  for (const path of files) {
    const entry = entryForFolder(path.slice(0, path.indexOf('/')));
    const text = texts.get(path);
    if (!entry || text === undefined) continue;
    const result = formatEntityYaml(text, entry);
    if (!result.ok) problems.push(...result.problems.map((p) => ({ property: `${path}:${p.line}:${p.column}`, errorMessage: p.message })));
    else if (result.text !== text) rewrites.push({ path, text: result.text });
  }
  if (problems.length > 0) throw new InputError(`Cannot format ${dir}: fix the YAML first (nothing was written).`, problems);
  if (!options.check) for (const { path, text } of rewrites) await writeFile(join(dir, path), text);
  return { changed: rewrites.map((r) => r.path), checked: files.length };
}
