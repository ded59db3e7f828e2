/**
 * Where a config repository's files come from: the working tree, or a git ref. The loader walks the
 * same layout over either, so `validate`, `plan --base/--head`, `apply` and the bridge read a
 * repository the same way.
 */
export interface RepoListing {
  /** Repository-relative posix paths of flagops.yaml (when present) and of every file directly inside a kind folder. */
  files: string[];
  /** Paths of things the layout doesn't expect: folders inside kind folders. */
  ignored: string[];
  /** Top-level folders that are not kind folders (to suggest a kind folder for a typo). */
  otherFolders: string[];
}

export interface RepoReader {
  /** For messages: a directory, or `git <ref>`. */
  readonly label: string;
  list(): Promise<RepoListing>;
  /** Reads files as UTF-8 text; every path must come from `list()`. */
  read(paths: readonly string[]): Promise<Map<string, string>>;
}
