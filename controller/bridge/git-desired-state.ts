import { posix } from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { deepFreeze } from '../core/deep-freeze.js';
import { UpstreamError } from '../errors.js';
import type { BridgePolicies } from '../core/bridge-policies.js';
import { GitRepoReader } from '../source/git-source.js';
import type { DesiredState, DesiredStateSource } from './bridge-service.js';

export interface GitDesiredStateOptions {
  /** A clone (or the origin itself) of the config repository. */
  repoDir: string;
  branch: string;
  /** Folder of the config repo inside the git repository ('' for its root). */
  subdir?: string;
  /** Parses an entity file's text (YAML with JSON5 blocks) into the entity's fields. */
  parse: (text: string, path: string) => Record<string, unknown>;
  /** Reads the bridge policies from flagops.yaml's text at the same commit. */
  parsePolicies?: (text: string) => BridgePolicies;
  /** Fetch the branch from `origin` before reading, when the clone has that remote. */
  fetch?: boolean;
  /** Fetches are shared by decisions arriving within this window (ms). */
  fetchWindowMs?: number;
  clock?: () => number;
}

/** One file of a snapshot: its text by blob id, and what parsing it gave, once it was asked for. */
interface SnapshotFile {
  blob: string;
  text: string;
  parsed?: { entity: Record<string, unknown> } | { error: unknown };
}

/** Reads an entity's desired state at the HEAD of the configured branch, fetched with simple-git. */
export class GitDesiredState implements DesiredStateSource {
  private readonly git: SimpleGit;
  private lastFetch: { at: number; done: Promise<string> } | undefined;
  private readonly snapshots = new Map<string, Promise<Map<string, SnapshotFile>>>();
  /** The last snapshot read: a new head reuses its unchanged files (text and parse) by blob id. */
  private latest: Map<string, SnapshotFile> | undefined;
  /** flagops.yaml's policies by commit: parsed once, not once per decision. */
  private readonly policies = new Map<string, BridgePolicies | undefined>();

  constructor(private readonly options: GitDesiredStateOptions) {
    this.git = simpleGit(options.repoDir);
  }

  /** Resolves the commit of the branch head, fetching first when there is a remote. */
  private head(): Promise<string> {
    const clock = this.options.clock ?? Date.now;
    const window = this.options.fetchWindowMs ?? 1000;
    if (this.lastFetch && clock() - this.lastFetch.at < window) return this.lastFetch.done;
    const done = (async () => {
      const remotes = await this.git.getRemotes();
      const useRemote = this.options.fetch !== false && remotes.some((r) => r.name === 'origin');
      if (useRemote) await this.git.fetch('origin', this.options.branch);
      const ref = useRemote ? `origin/${this.options.branch}` : this.options.branch;
      return (await this.git.revparse([`${ref}^{commit}`])).trim();
    })();
    this.lastFetch = { at: clock(), done };
    done.catch(() => (this.lastFetch = undefined));
    return done;
  }

  async read(folder: string, id: string): Promise<DesiredState> {
    let commit: string;
    try {
      commit = await this.head();
    } catch (error) {
      throw new UpstreamError(`git: cannot resolve branch '${this.options.branch}': ${(error as Error).message.trim()}`);
    }
    const files = await this.files(commit);
    if (!this.policies.has(commit)) {
      const configText = files.get('flagops.yaml')?.text;
      this.policies.set(commit, configText !== undefined && this.options.parsePolicies ? this.options.parsePolicies(configText) : undefined);
      if (this.policies.size > 2) this.policies.delete(this.policies.keys().next().value as string);
    }
    const policies = this.policies.get(commit);
    for (const ext of ['yaml', 'yml']) {
      const file = files.get(`${folder}/${id}.${ext}`);
      if (file === undefined) continue;
      const path = posix.join(this.options.subdir ?? '', folder, `${id}.${ext}`);
      return { branch: this.options.branch, commit, path, entity: this.parsed(file, path), policies };
    }
    return { branch: this.options.branch, commit, path: posix.join(this.options.subdir ?? '', folder, `${id}.yaml`), entity: undefined, policies };
  }

  /**
   * The file's entity, parsed on the first decision that asks for it. The result (or the parser's
   * error) stays with the file, and so with every later head where its blob is unchanged.
   */
  private parsed(file: SnapshotFile, path: string): Record<string, unknown> {
    if (!file.parsed) {
      try {
        // Frozen: decisions of many reviews share it.
        file.parsed = { entity: deepFreeze(this.options.parse(file.text, path)) };
      } catch (error) {
        file.parsed = { error };
      }
    }
    if ('error' in file.parsed) throw file.parsed.error;
    return file.parsed.entity;
  }

  /**
   * Every file of the config repository at a commit, read once per commit (one ls-tree, batched
   * shows): a burst of webhook deliveries at the same head costs one git read, not one per review.
   * Files the previous snapshot has with the same blob are taken from it, so a new head costs git
   * only its changed files (a merge touching three files of thousands reads three).
   */
  private files(commit: string): Promise<Map<string, SnapshotFile>> {
    let snapshot = this.snapshots.get(commit);
    if (!snapshot) {
      snapshot = (async () => {
        try {
          const reader = await GitRepoReader.open(posix.join(this.options.repoDir, this.options.subdir ?? ''), commit);
          const previous = this.latest;
          const files = new Map<string, SnapshotFile>();
          const missing: string[] = [];
          for (const path of (await reader.list()).files) {
            const known = previous?.get(path);
            if (known !== undefined && known.blob === reader.blobId(path)) files.set(path, known);
            else missing.push(path);
          }
          for (const [path, text] of await reader.read(missing)) files.set(path, { blob: reader.blobId(path) ?? '', text });
          this.latest = files;
          return files;
        } catch (error) {
          throw error instanceof UpstreamError ? error : new UpstreamError(`git: cannot read the repository at ${commit.slice(0, 12)}: ${(error as Error).message}`);
        }
      })();
      this.snapshots.set(commit, snapshot);
      snapshot.catch(() => this.snapshots.delete(commit));
      // Two heads are enough: the current one and the one decisions in flight may still read.
      if (this.snapshots.size > 2) this.snapshots.delete(this.snapshots.keys().next().value as string);
    }
    return snapshot;
  }
}
