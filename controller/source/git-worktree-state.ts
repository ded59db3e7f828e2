import { simpleGit } from 'simple-git';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';

export interface WorktreeState {
  /** HEAD's commit. */
  head: string;
  branch: string | null;
  /** Config files (flagops.yaml and the entity folders) with uncommitted changes, untracked ones included. */
  dirtyConfigFiles: string[];
  /** What the bridge reads when the branch has one: its upstream (else origin/<branch>), and that ref's commit. */
  upstream?: { ref: string; commit: string };
}

const CONFIG_ROOTS = new Set(['flagops.yaml', 'flagops.yml', ...ENTITY_SCHEMAS.map((e) => e.folder)]);

/** Whether a path relative to the repository root is one apply reads. */
const isConfigFile = (path: string): boolean => CONFIG_ROOTS.has(path.split('/')[0] ?? '');

/**
 * The git state of the config repository apply runs on, for the check that the bridge will read the
 * same files: undefined when DIR is not a git work tree (nothing to compare with).
 */
export async function worktreeState(dir: string): Promise<WorktreeState | undefined> {
  const git = simpleGit(dir);
  if (!(await git.checkIsRepo().catch(() => false))) return undefined;
  const head = (await git.revparse(['HEAD']).catch(() => '')).trim();
  if (head === '') return undefined;
  // Paths relative to DIR, which may be a folder inside the work tree.
  const prefix = (await git.revparse(['--show-prefix'])).trim();
  const status = await git.status(['--untracked-files=all', '--', '.']);
  const dirtyConfigFiles = status.files
    .map((f) => f.path)
    .map((path) => (prefix !== '' && path.startsWith(prefix) ? path.slice(prefix.length) : path))
    .filter(isConfigFile)
    .sort();
  const branch = status.current && status.current !== 'HEAD' ? status.current : null;
  let upstreamRef = status.tracking ?? undefined;
  if (upstreamRef === undefined && branch !== null) {
    const candidate = `origin/${branch}`;
    if ((await git.raw(['rev-parse', '--verify', '--quiet', `refs/remotes/${candidate}`]).catch(() => '')).trim() !== '') upstreamRef = candidate;
  }
  const upstreamCommit = upstreamRef === undefined ? '' : (await git.raw(['rev-parse', '--verify', '--quiet', `${upstreamRef}^{commit}`]).catch(() => '')).trim();
  return { head, branch, dirtyConfigFiles, ...(upstreamRef !== undefined && upstreamCommit !== '' ? { upstream: { ref: upstreamRef, commit: upstreamCommit } } : {}) };
}

/** What differs from what the bridge will read, as sentences with what to do; empty when nothing does. */
export function worktreeProblems(state: WorktreeState): string[] {
  const problems: string[] = [];
  if (state.dirtyConfigFiles.length > 0) {
    const shown = state.dirtyConfigFiles.slice(0, 5).join(', ') + (state.dirtyConfigFiles.length > 5 ? `, and ${state.dirtyConfigFiles.length - 5} more` : '');
    problems.push(`uncommitted changes to config files (${shown}): the bridge checks each change against the committed files and would reject these; commit and push them first`);
  }
  if (state.upstream && state.upstream.commit !== state.head) {
    problems.push(`HEAD (${state.head.slice(0, 12)}) is not ${state.upstream.ref} (${state.upstream.commit.slice(0, 12)}), which the bridge reads: push (or pull) first`);
  }
  return problems;
}

/** Git commit of the repository directory (with `+dirty` for uncommitted changes), if it is a git repository. */
export async function gitCommitOf(dir: string): Promise<string | undefined> {
  try {
    const git = simpleGit(dir);
    if (!(await git.checkIsRepo())) return undefined;
    const head = (await git.revparse(['HEAD'])).trim();
    return (await git.status()).isClean() ? head : `${head}+dirty`;
  } catch {
    return undefined;
  }
}
