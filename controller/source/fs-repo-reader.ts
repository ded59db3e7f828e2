import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { REPO_CONFIG_FILE } from '../../schemas/repo-config.js';
import { InputError } from '../errors.js';
import type { RepoListing, RepoReader } from './repo-reader.js';

/** Files read between two turns of the event loop. */
const BATCH = 500;

/** Reads a config repository from a directory (the working tree). */
export class FsRepoReader implements RepoReader {
  readonly label: string;

  /** `label` names the repository in messages and plans (default: the directory). */
  constructor(
    private readonly dir: string,
    label?: string,
  ) {
    this.label = label ?? dir;
  }

  async list(): Promise<RepoListing> {
    let top;
    try {
      top = await readdir(this.dir, { withFileTypes: true });
    } catch (error) {
      throw new InputError(`Cannot read the config repository ${this.dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
    }
    const folders = new Set(ENTITY_SCHEMAS.map((e) => e.folder));
    const listing: RepoListing = { files: [], ignored: [], otherFolders: [] };
    if (top.some((d) => d.isFile() && d.name === REPO_CONFIG_FILE)) listing.files.push(REPO_CONFIG_FILE);
    for (const entry of top) {
      if (!entry.isDirectory()) continue;
      if (!folders.has(entry.name)) {
        listing.otherFolders.push(entry.name);
        continue;
      }
      for (const child of await readdir(join(this.dir, entry.name), { withFileTypes: true })) {
        const path = `${entry.name}/${child.name}`;
        if (child.isDirectory()) listing.ignored.push(path);
        else listing.files.push(path);
      }
    }
    listing.files.sort();
    listing.ignored.sort();
    listing.otherFolders.sort();
    return listing;
  }

  async read(paths: readonly string[]): Promise<Map<string, string>> {
    // Synchronous reads of small files beat the promise API (one thread-pool hop per open, stat,
    // read and close) several times over; yielding between batches keeps the event loop (and
    // concurrent console reads) moving.
    const out = new Map<string, string>();
    for (let start = 0; start < paths.length; start += BATCH) {
      for (const path of paths.slice(start, start + BATCH)) out.set(path, readFileSync(join(this.dir, path), 'utf8'));
      if (start + BATCH < paths.length) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return out;
  }
}
