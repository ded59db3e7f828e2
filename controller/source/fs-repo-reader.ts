import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, realpathSync, type Dirent, type Stats } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { FLAG_TESTS_FOLDER } from '../../schemas/flag-test.js';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { REPO_CONFIG_FILE, type ReadLimits } from '../../schemas/repo-config.js';
import { InputError } from '../errors.js';
import { decodeUtf8 } from './decode-utf8.js';
import { overFileLimit, ReadBudget, readerLimits, stopIfAborted, unreadableError } from './read-budget.js';
import type { RepoListing, RepoProblem, RepoReadOptions, RepoReader } from './repo-reader.js';

/** Files read between two turns of the event loop. */
const BATCH = 500;

const YAML_NAME = /\.ya?ml$/;

/**
 * Never blocks (a FIFO that slipped past the listing opens at once), never follows a link the
 * listing did not check, never makes a terminal the controlling one.
 */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW | constants.O_NOCTTY;

/** What a non-regular entry is, for its problem. */
function kindOf(entry: Dirent | Stats): string {
  if (entry.isFile()) return 'a file';
  if (entry.isDirectory()) return 'a folder';
  if (entry.isFIFO()) return 'a FIFO (named pipe)';
  if (entry.isSocket()) return 'a socket';
  if (entry.isCharacterDevice() || entry.isBlockDevice()) return 'a device';
  if (entry.isSymbolicLink()) return 'a symbolic link';
  return 'something else';
}

const inside = (root: string, path: string): boolean => path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);

const errnoOf = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? (error as Error).message;

/** Reads a config repository from a directory (the working tree). */
export class FsRepoReader implements RepoReader {
  readonly label: string;

  /** `label` names the repository in messages and plans (default: the directory). */
  constructor(
    private readonly dir: string,
    label?: string,
    readonly options: RepoReadOptions = {},
  ) {
    this.label = label ?? dir;
  }

  async list(): Promise<RepoListing> {
    // Synchronous listing, as the reads: a folder of thousands of files lists in a few milliseconds,
    // where each await of the promise API is a thread-pool hop a plan waits for (it lists twice).
    let top;
    let root;
    try {
      top = readdirSync(this.dir, { withFileTypes: true });
      root = realpathSync(this.dir);
    } catch (error) {
      throw new InputError(`Cannot read the config repository ${this.dir}: ${errnoOf(error)}.`);
    }
    const folders = new Set(ENTITY_SCHEMAS.map((e) => e.folder));
    const listing: RepoListing = { files: [], testFiles: [], ignored: [], otherFolders: [], kindFolders: [], problems: [] };
    for (const entry of top) {
      if (entry.name === REPO_CONFIG_FILE) {
        await this.admit(REPO_CONFIG_FILE, entry, root, listing, listing.files);
        continue;
      }
      const isFolder = entry.isDirectory();
      if (entry.name === FLAG_TESTS_FOLDER && isFolder) {
        await this.listTests(root, listing);
        continue;
      }
      if (!folders.has(entry.name)) {
        if (isFolder) listing.otherFolders.push(entry.name);
        continue;
      }
      if (!isFolder) {
        listing.problems.push({ path: entry.name, message: `is ${kindOf(entry)}, not a folder: a kind folder must be a real folder of the repository; not read` });
        continue;
      }
      listing.kindFolders.push(entry.name);
      let children;
      try {
        children = readdirSync(join(this.dir, entry.name), { withFileTypes: true });
      } catch (error) {
        listing.problems.push({ path: entry.name, message: `cannot be listed: ${errnoOf(error)}` });
        continue;
      }
      for (const child of children) {
        const path = `${entry.name}/${child.name}`;
        // A regular file is listed as it is: only other entries need admit's checks (and its awaits).
        if (YAML_NAME.test(child.name)) {
          if (child.isFile()) listing.files.push(path);
          else await this.admit(path, child, root, listing, listing.files);
        }
        else if (child.isDirectory()) listing.ignored.push(path);
        // Other names are never read: the loader only warns about them.
        else listing.files.push(path);
      }
    }
    listing.files.sort();
    listing.testFiles.sort();
    listing.ignored.sort();
    listing.otherFolders.sort();
    listing.kindFolders.sort();
    listing.problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return listing;
  }

  /** The YAML files directly inside `tests/`, under the same checks as entity files. */
  private async listTests(root: string, listing: RepoListing): Promise<void> {
    let children;
    try {
      children = readdirSync(join(this.dir, FLAG_TESTS_FOLDER), { withFileTypes: true });
    } catch (error) {
      listing.problems.push({ path: FLAG_TESTS_FOLDER, message: `cannot be listed: ${errnoOf(error)}` });
      return;
    }
    for (const child of children) {
      if (!YAML_NAME.test(child.name)) continue;
      const path = `${FLAG_TESTS_FOLDER}/${child.name}`;
      if (child.isFile()) listing.testFiles.push(path);
      else await this.admit(path, child, root, listing, listing.testFiles);
    }
  }

  /**
   * Lists a file the loader will read (into `into`), or records why it won't: only a regular file, or a link that
   * resolves to a regular file inside the repository. Decided from lstat/stat alone, never by opening.
   */
  private async admit(path: string, entry: Dirent, root: string, listing: RepoListing, into: string[]): Promise<void> {
    const full = join(this.dir, path);
    let type: Dirent | Stats = entry;
    try {
      // Some file systems don't report entry types in readdir.
      if (!entry.isFile() && !entry.isDirectory() && !entry.isSymbolicLink() && !entry.isFIFO() && !entry.isSocket() && !entry.isCharacterDevice() && !entry.isBlockDevice()) {
        type = await lstat(full);
      }
      if (type.isFile()) {
        into.push(path);
        return;
      }
      if (!type.isSymbolicLink()) {
        listing.problems.push({ path, message: `is ${kindOf(type)}, not a regular file; not read` });
        return;
      }
      let target;
      try {
        target = await realpath(full);
      } catch (error) {
        const code = errnoOf(error);
        listing.problems.push({ path, message: code === 'ENOENT' ? 'is a symbolic link to nothing (a broken link); not read' : code === 'ELOOP' ? 'is a symbolic link loop; not read' : `is a symbolic link that cannot be resolved (${code}); not read` });
        return;
      }
      if (!inside(root, target)) {
        listing.problems.push({ path, message: 'is a symbolic link to a location outside the repository; not read' });
        return;
      }
      const resolved = await stat(target);
      if (resolved.isFile()) into.push(path);
      else listing.problems.push({ path, message: `is a symbolic link to ${kindOf(resolved)}, not to a regular file; not read` });
    } catch (error) {
      listing.problems.push({ path, message: `cannot be inspected: ${errnoOf(error)}` });
    }
  }

  async readWithin(paths: readonly string[], limits: ReadLimits): Promise<{ texts: Map<string, string>; problems: RepoProblem[] }> {
    // Synchronous reads of small files beat the promise API (one thread-pool hop per open, stat,
    // read and close) several times over; yielding between batches keeps the event loop (and
    // concurrent console reads, and signals) moving. Every open is non-blocking, so no entry can
    // hold the process.
    const texts = new Map<string, string>();
    const problems: RepoProblem[] = [];
    const budget = new ReadBudget(limits.maxRepoBytes, problems);
    let root: string | undefined;
    for (let start = 0; start < paths.length; start += BATCH) {
      stopIfAborted(this.options.signal);
      for (const path of paths.slice(start, start + BATCH)) {
        const result = this.readOne(path, () => (root ??= realpathSync(this.dir)), limits.maxFileBytes, budget);
        if (typeof result === 'string') texts.set(path, result);
        else if (result) problems.push(result);
      }
      if (start + BATCH < paths.length) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return { texts, problems };
  }

  async changedAt(paths: readonly string[]): Promise<Map<string, number>> {
    // Loaded on use: validate and fmt read files through this reader and never need git.
    const { gitChangeTimes } = await import('./git-change-times.js');
    return gitChangeTimes(this.dir, paths, Date.now());
  }

  async read(paths: readonly string[]): Promise<Map<string, string>> {
    const { texts, problems } = await this.readWithin(paths, readerLimits(this.options));
    if (problems.length > 0) throw unreadableError(this.label, problems);
    return texts;
  }

  /**
   * One file, checked again at open time (the tree may have changed since it was listed): its text,
   * its problem, or undefined when the repository budget is spent (the budget recorded that).
   */
  private readOne(path: string, root: () => string, maxBytes: number, budget: ReadBudget): string | RepoProblem | undefined {
    const full = join(this.dir, path);
    let fd: number | undefined;
    try {
      try {
        fd = openSync(full, OPEN_FLAGS);
      } catch (error) {
        if (errnoOf(error) !== 'ELOOP') throw error;
        // A link: read its target only if it still resolves inside the repository.
        const target = realpathSync(full);
        if (!inside(root(), target)) return { path, message: 'is a symbolic link to a location outside the repository; not read' };
        fd = openSync(target, OPEN_FLAGS);
      }
      const stats = fstatSync(fd);
      if (!stats.isFile()) return { path, message: `is ${kindOf(stats)}, not a regular file; not read` };
      if (stats.size > maxBytes) return { path, message: overFileLimit(stats.size, maxBytes) };
      if (!budget.admit(path, stats.size)) return undefined;
      // One byte more than the size it claims: a file that grew since is noticed, never read whole.
      const buffer = Buffer.allocUnsafe(stats.size + 1);
      let length = 0;
      while (length < buffer.length) {
        const wanted = buffer.length - length;
        const n = readSync(fd, buffer, length, wanted, null);
        length += n;
        // A regular file reads short only at its end: no second call just to be told so.
        if (n < wanted) break;
      }
      if (length > stats.size) return { path, message: 'changed while it was read; not read' };
      const text = decodeUtf8(buffer.subarray(0, length));
      return typeof text === 'string' ? text : { path, ...text };
    } catch (error) {
      return { path, message: `cannot be read: ${errnoOf(error)}` };
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
}
