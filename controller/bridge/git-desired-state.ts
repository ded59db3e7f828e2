import { posix } from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { UpstreamError } from '../errors.js';
import type { BridgePolicies } from '../core/bridge-policies.js';
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
    const configText = this.options.parsePolicies ? await this.show(commit, posix.join(this.options.subdir ?? '', 'flagops.yaml')) : undefined;
    const policies = configText !== undefined && this.options.parsePolicies ? this.options.parsePolicies(configText) : undefined;
    const base = posix.join(this.options.subdir ?? '', folder);
    for (const ext of ['yaml', 'yml']) {
      const path = posix.join(base, `${id}.${ext}`);
      const text = await this.show(commit, path);
      if (text === undefined) continue;
      return { branch: this.options.branch, commit, path, entity: this.options.parse(text, path), policies };
    }
    return { branch: this.options.branch, commit, path: posix.join(base, `${id}.yaml`), entity: undefined, policies };
  }

  /** A file's text at a commit, or undefined when the commit has no such file. */
  private async show(commit: string, path: string): Promise<string | undefined> {
    try {
      return await this.git.show([`${commit}:${path}`]);
    } catch (error) {
      const message = (error as Error).message;
      if (/does not exist|exists on disk, but not in|path .* not in/i.test(message)) return undefined;
      throw new UpstreamError(`git: cannot read ${path} at ${commit.slice(0, 12)}: ${message.trim()}`);
    }
  }
}
