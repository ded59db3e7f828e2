import { simpleGit } from 'simple-git';

/**
 * When each file last changed, in epoch milliseconds: the committer time of the newest commit that
 * touched it, or `now` when the work tree holds uncommitted changes to it. Paths are relative to
 * `dir`, which may be a folder inside the work tree; files git cannot tell about (not a work tree,
 * never committed and not present) are absent from the map.
 */
export async function gitChangeTimes(dir: string, paths: readonly string[], now: number): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  if (paths.length === 0) return times;
  const git = simpleGit(dir);
  if (!(await git.checkIsRepo().catch(() => false))) return times;
  const wanted = new Set(paths);
  // Both commands print paths relative to `dir` (status with --porcelain prints them from the root).
  const dirty = await git.raw(['-c', 'core.quotePath=false', 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--', ...paths]).catch(() => '');
  const prefix = (await git.revparse(['--show-prefix']).catch(() => '')).trim();
  const entries = dirty.split('\0');
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] ?? '';
    // A rename or copy is followed by the path it came from, which has no status of its own.
    if (entry[0] === 'R' || entry[0] === 'C') i++;
    const path = entry.slice(3);
    const relative = prefix !== '' && path.startsWith(prefix) ? path.slice(prefix.length) : path;
    if (wanted.has(relative)) times.set(relative, now);
  }
  const pending = new Set(paths.filter((p) => !times.has(p)));
  if (pending.size === 0) return times;
  // Newest first: the first commit that names a path is its last change.
  const log = await git.raw(['-c', 'core.quotePath=false', 'log', '--relative', '--format=%x01%ct', '--name-only', '-z', '--', ...pending]).catch(() => '');
  let at: number | undefined;
  for (const token of log.split('\0')) {
    for (const line of token.split('\n')) {
      if (line.startsWith('\x01')) at = Number(line.slice(1)) * 1000;
      else if (line !== '' && at !== undefined && pending.delete(line)) times.set(line, at);
    }
    if (pending.size === 0) break;
  }
  return times;
}
