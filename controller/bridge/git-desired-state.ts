import { posix } from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
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

/** Reads an entity's desired state at the HEAD of the configured branch, fetched with simple-git. */
export class GitDesiredState implements DesiredStateSource {
  private readonly git: SimpleGit;
  private lastFetch: { at: number; done: Promise<string> } | undefined;
  private readonly snapshots = new Map<string, Promise<Map<string, string>>>();
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
      const configText = files.get('flagops.yaml');
      this.policies.set(commit, configText !== undefined && this.options.parsePolicies ? this.options.parsePolicies(configText) : undefined);
      if (this.policies.size > 2) this.policies.delete(this.policies.keys().next().value as string);
    }
    const policies = this.policies.get(commit);
    for (const ext of ['yaml', 'yml']) {
      const text = files.get(`${folder}/${id}.${ext}`);
      if (text === undefined) continue;
      const path = posix.join(this.options.subdir ?? '', folder, `${id}.${ext}`);
      return { branch: this.options.branch, commit, path, entity: this.options.parse(text, path), policies };
    }
    return { branch: this.options.branch, commit, path: posix.join(this.options.subdir ?? '', folder, `${id}.yaml`), entity: undefined, policies };
  }

  /**
   * Every file of the config repository at a commit, read once per commit (one ls-tree, batched
   * shows): a burst of webhook deliveries at the same head costs one git read, not one per review.
   */
  private files(commit: string): Promise<Map<string, string>> {
    let snapshot = this.snapshots.get(commit);
    if (!snapshot) {
      snapshot = (async () => {
        try {
          const reader = await GitRepoReader.open(posix.join(this.options.repoDir, this.options.subdir ?? ''), commit);
          return await reader.read((await reader.list()).files);
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
