import { simpleGit, type SimpleGit } from 'simple-git';
import { FLAG_TESTS_FOLDER } from '../../schemas/flag-test.js';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { REPO_CONFIG_FILE, type ReadLimits } from '../../schemas/repo-config.js';
import { InputError, UpstreamError } from '../errors.js';
import { decodeUtf8, type ContentProblem } from './decode-utf8.js';
import { overFileLimit, ReadBudget, readerLimits, stopIfAborted, unreadableError } from './read-budget.js';
import type { RepoListing, RepoProblem, RepoReadOptions, RepoReader } from './repo-reader.js';

/** Blobs fetched by one `git show`: keeps the command line well under the OS limit. */
const BATCH = 1000;

const YAML_NAME = /\.ya?ml$/;

/** Why a tree entry that is not a plain blob is not read. */
function notAFile(mode: string, type: string): string {
  return mode === '120000' ? 'is a symbolic link in git; links are not followed; not read' : `is a git ${type === 'commit' ? 'submodule' : type}, not a file; not read`;
}

interface Blob {
  sha: string;
  size: number;
}

/**
 * Reads a config repository as it is at a git ref (commit, branch, tag), with simple-git: the tree from
 * `git ls-tree`, the files from `git show` of their blobs, many blobs per call (split by the sizes the
 * tree lists), so reading ten thousand files doesn't start ten thousand processes. Symbolic links
 * (mode 120000) and submodules are problems, never resolved; a blob over the size limit is never shown.
 */
export class GitRepoReader implements RepoReader {
  readonly label: string;
  private blobs = new Map<string, Blob>();

  private constructor(
    private readonly git: SimpleGit,
    /** Commit the ref resolved to. */
    readonly commit: string,
    /** Path of the config repo inside the git repository, '' or ending in '/'. */
    private readonly prefix: string,
    ref: string,
    readonly options: RepoReadOptions,
  ) {
    this.label = `git ${ref}`;
  }

  /**
   * Opens the repository containing `dir` at `ref`; `dir` may be a sub-folder holding the config repo.
   * A ref may predate the config repository, so an empty one is accepted unless `allowEmpty: false`.
   */
  static async open(dir: string, ref: string, options: RepoReadOptions = {}): Promise<GitRepoReader> {
    const git = simpleGit(dir);
    let root: string;
    let prefix: string;
    try {
      root = (await git.revparse(['--show-toplevel'])).trim();
      prefix = (await git.revparse(['--show-prefix'])).trim();
    } catch (error) {
      throw new InputError(`${dir} is not inside a git repository: ${(error as Error).message.trim()}`);
    }
    let commit: string;
    try {
      commit = (await git.revparse(['--verify', '--quiet', `${ref}^{commit}`])).trim();
    } catch {
      commit = '';
    }
    if (commit === '') throw new InputError(`Unknown git ref '${ref}'.`, [{ property: '--base/--head', errorMessage: `'${ref}' is not a commit, branch or tag of ${root}` }]);
    return new GitRepoReader(simpleGit(root), commit, prefix, ref, { allowEmpty: true, ...options });
  }

  async list(): Promise<RepoListing> {
    let out: string;
    try {
      out = await this.git.raw(['ls-tree', '-r', '-l', '-z', this.commit, '--', this.prefix === '' ? '.' : this.prefix]);
    } catch (error) {
      throw new UpstreamError(`git ls-tree ${this.commit.slice(0, 12)} failed: ${(error as Error).message.trim()}`);
    }
    const folders = new Set(ENTITY_SCHEMAS.map((e) => e.folder));
    const listing: RepoListing = { files: [], testFiles: [], ignored: [], otherFolders: [], kindFolders: [], problems: [] };
    const ignored = new Set<string>();
    const other = new Set<string>();
    const kinds = new Set<string>();
    const yamlFolders = new Set<string>();
    this.blobs.clear();
    for (const record of out.split('\0')) {
      const match = /^(\d+) (\w+) ([0-9a-f]+)\s+(-|\d+)\t(.*)$/s.exec(record);
      if (!match) continue;
      const [, mode, type, sha, size, fullPath] = match as unknown as [string, string, string, string, string, string];
      if (!fullPath.startsWith(this.prefix)) continue;
      const path = fullPath.slice(this.prefix.length);
      const parts = path.split('/');
      if (parts[0] === FLAG_TESTS_FOLDER && parts.length > 1) {
        // Flag tests: the YAML files directly inside tests/; anything else there is not the loader's.
        if (parts.length !== 2 || !YAML_NAME.test(path)) continue;
        if (type !== 'blob' || mode === '120000') listing.problems.push({ path, message: notAFile(mode, type) });
        else {
          listing.testFiles.push(path);
          this.blobs.set(path, { sha, size: Number(size) });
        }
        continue;
      }
      if (parts.length > 2 && folders.has(parts[0] ?? '')) {
        // git lists files, never folders: a folder inside a kind folder shows as the paths under it,
        // whatever they are. Named like an entity file, it is an error, as in the working tree.
        const [folder, name] = parts as [string, string];
        kinds.add(folder);
        if (YAML_NAME.test(name)) yamlFolders.add(`${folder}/${name}`);
        else ignored.add(`${folder}/${name}`);
        continue;
      }
      // What the loader would read: flagops.yaml, a kind folder itself, or a YAML file directly inside one.
      const wanted = parts.length === 1 ? path === REPO_CONFIG_FILE || folders.has(path) : parts.length === 2 && folders.has(parts[0] ?? '') && YAML_NAME.test(path);
      if (type !== 'blob' || mode === '120000') {
        if (wanted) listing.problems.push({ path, message: notAFile(mode, type) });
        else if (parts.length > 1 && folders.has(parts[0] ?? '')) kinds.add(parts[0] ?? '');
        continue;
      }
      if (parts.length === 1) {
        if (path === REPO_CONFIG_FILE) {
          listing.files.push(path);
          this.blobs.set(path, { sha, size: Number(size) });
        } else if (folders.has(path)) listing.problems.push({ path, message: 'is a file, not a folder: a kind folder must be a real folder of the repository; not read' });
        continue;
      }
      const [folder] = parts as [string];
      if (!folders.has(folder)) other.add(folder);
      else {
        kinds.add(folder);
        listing.files.push(path);
        this.blobs.set(path, { sha, size: Number(size) });
      }
    }
    for (const path of yamlFolders) listing.problems.push({ path, message: 'is a folder, not a regular file; not read' });
    listing.files.sort();
    listing.testFiles.sort();
    listing.ignored = [...ignored].sort();
    listing.otherFolders = [...other].sort();
    listing.kindFolders = [...kinds].sort();
    listing.problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return listing;
  }

  /** The blob id of a listed file (same id, same text: lets a reader of many commits reuse texts). */
  blobId(path: string): string | undefined {
    return this.blobs.get(path)?.sha;
  }

  async read(paths: readonly string[]): Promise<Map<string, string>> {
    const { texts, problems } = await this.readWithin(paths, readerLimits(this.options));
    if (problems.length > 0) throw unreadableError(this.label, problems);
    return texts;
  }

  async readWithin(paths: readonly string[], limits: ReadLimits): Promise<{ texts: Map<string, string>; problems: RepoProblem[] }> {
    const out = new Map<string, string>();
    const problems: RepoProblem[] = [];
    const budget = new ReadBudget(limits.maxRepoBytes, problems);
    const wanted: { path: string; blob: Blob }[] = [];
    for (const path of paths) {
      const blob = this.blobs.get(path);
      if (!blob) throw new InputError(`${path} is not in ${this.label} (list the repository first).`);
      if (blob.size > limits.maxFileBytes) problems.push({ path, message: overFileLimit(blob.size, limits.maxFileBytes) });
      else if (budget.admit(path, blob.size)) wanted.push({ path, blob });
    }
    for (let start = 0; start < wanted.length; start += BATCH) {
      stopIfAborted(this.options.signal);
      const batch = wanted.slice(start, start + BATCH);
      let buffer: Buffer;
      try {
        buffer = await this.git.showBuffer(['--no-textconv', ...new Set(batch.map((b) => b.blob.sha))]);
      } catch (error) {
        throw new UpstreamError(`git show at ${this.commit.slice(0, 12)} failed: ${(error as Error).message.trim()}`);
      }
      // `git show` prints each distinct blob once, in argument order.
      const texts = new Map<string, string | ContentProblem>();
      let offset = 0;
      for (const { blob } of batch) {
        if (texts.has(blob.sha)) continue;
        texts.set(blob.sha, decodeUtf8(buffer.subarray(offset, offset + blob.size)));
        offset += blob.size;
      }
      if (offset !== buffer.length) throw new UpstreamError(`git show at ${this.commit.slice(0, 12)} returned ${buffer.length} bytes, expected ${offset}.`);
      for (const { path, blob } of batch) {
        const text = texts.get(blob.sha) ?? '';
        if (typeof text === 'string') out.set(path, text);
        else problems.push({ path, ...text });
      }
    }
    return { texts: out, problems };
  }
}
