import type { ReadLimits } from '../../schemas/repo-config.js';

/**
 * Where a config repository's files come from: the working tree, or a git ref. The loader walks the
 * same layout over either, so `validate`, `plan --base/--head`, `apply` and the bridge read a
 * repository the same way, under one policy: only regular files inside the repository are read;
 * links that leave it, FIFOs, sockets, devices, folders named *.yaml, and (in git) symbolic links and
 * submodules are problems with their path, never opened for reading.
 */
export interface RepoListing {
  /** Repository-relative posix paths of flagops.yaml (when present) and of every file directly inside a kind folder. */
  files: string[];
  /** Repository-relative paths of the flag test files: YAML files directly inside `tests/`. */
  testFiles: string[];
  /** Paths of things the layout doesn't expect: folders inside kind folders. */
  ignored: string[];
  /** Top-level folders that are not kind folders (to suggest a kind folder for a typo). */
  otherFolders: string[];
  /** Kind folders present (even empty): with flagops.yaml, what makes a folder a config repository. */
  kindFolders: string[];
  /** Entries the reader refuses to read, each with why. */
  problems: RepoProblem[];
}

export interface RepoProblem {
  /** Repository-relative posix path. */
  path: string;
  message: string;
  /** Where in the file, when the problem is in its content (a byte that is not UTF-8); else 1:1. */
  line?: number;
  column?: number;
}

/** What a caller asks of a reader beyond the defaults (command-line flags). */
export interface RepoReadOptions {
  /** Limits that win over flagops.yaml's `limits:` section. */
  limits?: Partial<ReadLimits>;
  /** Accept a folder with neither flagops.yaml nor a kind folder (as an empty repository). */
  allowEmpty?: boolean;
  /** Stops a long read between files (SIGTERM, SIGINT). */
  signal?: AbortSignal;
}

export interface RepoReader {
  /** For messages: a directory, or `git <ref>`. */
  readonly label: string;
  readonly options: RepoReadOptions;
  list(): Promise<RepoListing>;
  /**
   * Reads files as UTF-8 text within the limits; every path must come from `list()`. A file that is
   * over a limit, not valid UTF-8, or no longer a regular file inside the repository is left out of
   * `texts` and reported in `problems`.
   */
  readWithin(paths: readonly string[], limits: ReadLimits): Promise<{ texts: Map<string, string>; problems: RepoProblem[] }>;
  /** Reads files within the reader's own limits (flags, else the defaults); throws an InputError naming every file it refuses. */
  read(paths: readonly string[]): Promise<Map<string, string>>;
  /**
   * When each file last changed (epoch ms), for a reader of a work tree: its newest commit, or now
   * when it has uncommitted changes. Files it cannot tell about are absent.
   */
  changedAt?(paths: readonly string[]): Promise<Map<string, number>>;
}
