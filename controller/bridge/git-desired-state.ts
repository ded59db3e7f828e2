import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, posix } from 'node:path';
import { promisify } from 'node:util';
import { simpleGit, type SimpleGit } from 'simple-git';
import { ownedPathsOf } from '../core/console-owned.js';
import { deepFreeze } from '../core/deep-freeze.js';
import { InputError, UpstreamError } from '../errors.js';
import type { BridgePolicies } from '../core/bridge-policies.js';
import { GitRepoReader } from '../source/git-source.js';
import { InvalidPoliciesError, type DesiredState, type DesiredStateSource } from './bridge-service.js';

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
  /** Reads `ownership.console` (the fields the console owns, by kind and by entity) from the same text. */
  parseOwnership?: (text: string) => Readonly<Record<string, readonly string[]>>;
  /** Fetch the branch from `origin` before reading, when the clone has that remote. */
  fetch?: boolean;
  /**
   * A fetch that sends nothing for this long is stopped and counts as a git failure (default 30 s):
   * a remote that accepts the connection and never answers would otherwise hold every decision.
   */
  fetchTimeoutMs?: number;
}

const DEFAULT_FETCH_TIMEOUT_MS = 30_000;

const execFileAsync = promisify(execFile);

/** One file of a snapshot: its text by blob id, and what parsing it gave, once it was asked for. */
interface SnapshotFile {
  blob: string;
  text: string;
  parsed?: { entity: Record<string, unknown> } | { error: unknown };
}

/** Reads an entity's desired state at the head of the configured branch, resolved (and fetched) for each decision with simple-git. */
export class GitDesiredState implements DesiredStateSource {
  private readonly git: SimpleGit;
  /** The head resolution asking git now, and the one decisions arriving meanwhile wait for. */
  private running: { done: Promise<string> } | undefined;
  private waiting: { done: Promise<string> } | undefined;
  private readonly snapshots = new Map<string, Promise<Map<string, SnapshotFile>>>();
  /** The last snapshot read: a new head reuses its unchanged files (text and parse) by blob id. */
  private latest: Map<string, SnapshotFile> | undefined;
  /** `${head} ${commit}` pairs being checked for ancestry, or found to be ancestors. */
  private readonly contained = new Map<string, Promise<boolean>>();
  /** The repository's common git directory, asked once. */
  private gitDir: Promise<string> | undefined;
  /** Whether `origin` exists, with the state of the git config it was read from. */
  private origin: { config: string; present: boolean } | undefined;
  /** flagops.yaml's policies and ownership by commit: parsed once, not once per decision. */
  private readonly settings = new Map<string, { policies: BridgePolicies | undefined; ownership: Readonly<Record<string, readonly string[]>> }>();

  /** Runs the fetch, bounded in time: killed when git sends nothing for fetchTimeoutMs. */
  private readonly fetcher: SimpleGit;

  constructor(private readonly options: GitDesiredStateOptions) {
    this.git = simpleGit(options.repoDir);
    this.fetcher = simpleGit({ baseDir: options.repoDir, timeout: { block: options.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS } });
  }

  /**
   * The head decisions share: a resolution not yet started takes every decision that arrives before
   * it asks git. A decision arriving while one runs waits for the next, since the running one may have
   * fetched before the change it judges was pushed; so there is at most one resolution running and
   * one waiting, whatever the rate of decisions, and none answers from refs read before it arrived.
   */
  private head(): Promise<string> {
    if (this.waiting) return this.waiting.done;
    const previous = this.running?.done;
    const resolution = {} as { done: Promise<string> };
    resolution.done = (async () => {
      await previous?.catch(() => undefined);
      // Decisions of one burst (deliveries of the same tick) join before git is asked.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.waiting === resolution) this.waiting = undefined;
      this.running = resolution;
      try {
        return await this.resolveHead();
      } finally {
        if (this.running === resolution) this.running = undefined;
      }
    })();
    this.waiting = resolution;
    return resolution.done;
  }

  /**
   * Resolves the commit of the branch head, fetching first when there is a remote. Without one (or
   * after the fetch) the ref is read from its file when git keeps it loose: a decision then waits for
   * a file read, not for a git process, which under a burst of deliveries is most of its latency.
   */
  private async resolveHead(): Promise<string> {
    const useRemote = this.options.fetch !== false && (await this.hasOrigin());
    if (useRemote) await this.fetcher.fetch('origin', this.options.branch);
    const ref = useRemote ? `origin/${this.options.branch}` : this.options.branch;
    const loose = await this.looseRef(useRemote ? `refs/remotes/origin/${this.options.branch}` : `refs/heads/${this.options.branch}`);
    return loose ?? (await this.git.revparse([`${ref}^{commit}`])).trim();
  }

  private commonGitDir(): Promise<string> {
    this.gitDir ??= this.git.revparse(['--git-common-dir']).then((dir) => {
      const trimmed = dir.trim();
      return isAbsolute(trimmed) ? trimmed : join(this.options.repoDir, trimmed);
    });
    this.gitDir.catch(() => (this.gitDir = undefined));
    return this.gitDir;
  }

  /** Whether the clone has `origin`; asks git again only when its config file changed. */
  private async hasOrigin(): Promise<boolean> {
    const config = await stat(join(await this.commonGitDir(), 'config')).then(
      (s) => `${s.mtimeMs} ${s.size} ${s.ino}`,
      () => '',
    );
    if (this.origin === undefined || config === '' || this.origin.config !== config) {
      const present = (await this.git.getRemotes()).some((r) => r.name === 'origin');
      this.origin = { config, present };
    }
    return this.origin.present;
  }

  /**
   * The commit a loose ref file names, or undefined when git must answer: a packed or symbolic ref,
   * another ref storage (reftable), or a branch name that is not a plain path. Git replaces a loose
   * ref by renaming a complete file over it, so the read sees the old or the new commit, whole.
   */
  private async looseRef(ref: string): Promise<string | undefined> {
    if (!/^[A-Za-z0-9._/-]+$/.test(ref) || ref.split('/').some((part) => part === '' || part === '.' || part === '..')) return undefined;
    try {
      const text = (await readFile(join(await this.commonGitDir(), ref), 'utf8')).trim();
      return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(text) ? text : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Whether `commit` is `head` or one of its ancestors (`git merge-base --is-ancestor`). A commit git
   * does not know (not fetched yet, or from another repository) is not contained. A burst of decisions
   * names one commit and sees one head: they share one git call, and a yes is remembered.
   */
  contains(head: string, commit: string): Promise<boolean> {
    // Only object names reach git: the commit comes from a review's description, which anyone may write.
    if (!/^[0-9a-f]{4,64}$/.test(commit) || !/^[0-9a-f]{4,64}$/.test(head)) return Promise.resolve(false);
    const key = `${head} ${commit}`;
    let known = this.contained.get(key);
    if (!known) {
      known = this.isAncestor(commit, head);
      this.contained.set(key, known);
      known.then(
        (yes) => yes || this.contained.delete(key),
        () => this.contained.delete(key),
      );
      if (this.contained.size > 64) this.contained.delete(this.contained.keys().next().value as string);
    }
    return known;
  }

  private async isAncestor(commit: string, head: string): Promise<boolean> {
    try {
      await execFileAsync('git', ['merge-base', '--is-ancestor', commit, head], { cwd: this.options.repoDir });
      return true;
    } catch (error) {
      // Exit 1: not an ancestor; 128: an object git does not have. Anything else is git failing.
      const code = (error as { code?: unknown }).code;
      if (code === 1 || code === 128) return false;
      throw new UpstreamError(`git merge-base --is-ancestor ${commit.slice(0, 12)} ${head.slice(0, 12)} failed: ${String((error as Error).message).trim()}`);
    }
  }

  async read(folder: string, id: string): Promise<DesiredState> {
    let commit: string;
    try {
      commit = await this.head();
    } catch (error) {
      throw new UpstreamError(`git: cannot resolve branch '${this.options.branch}': ${(error as Error).message.trim()}`);
    }
    const files = await this.files(commit);
    if (!this.settings.has(commit)) {
      const configText = files.get('flagops.yaml')?.text;
      let policies: BridgePolicies | undefined;
      let ownership: Readonly<Record<string, readonly string[]>> = {};
      try {
        policies = configText !== undefined && this.options.parsePolicies ? this.options.parsePolicies(configText) : undefined;
        ownership = configText !== undefined && this.options.parseOwnership ? this.options.parseOwnership(configText) : {};
      } catch (error) {
        const fields = error instanceof InputError ? error.errors : [{ property: '', errorMessage: (error as Error).message }];
        throw new InvalidPoliciesError(`${posix.join(this.options.subdir ?? '', 'flagops.yaml')} at ${commit.slice(0, 12)} on ${this.options.branch} is invalid, so its bridge policies are unknown`, fields);
      }
      this.settings.set(commit, { policies, ownership });
      if (this.settings.size > 2) this.settings.delete(this.settings.keys().next().value as string);
    }
    const { policies, ownership } = this.settings.get(commit)!;
    const owned = ownedPathsOf(ownership, folder, id);
    for (const ext of ['yaml', 'yml']) {
      const file = files.get(`${folder}/${id}.${ext}`);
      if (file === undefined) continue;
      const path = posix.join(this.options.subdir ?? '', folder, `${id}.${ext}`);
      return { branch: this.options.branch, commit, path, entity: this.parsed(file, path), policies, ...(owned.length > 0 ? { owned } : {}) };
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
