import { isAbsolute, relative, resolve, sep } from 'node:path';
import { watch } from 'chokidar';

export interface WatchOptions {
  /** Quiet period after the last event before `onChange` runs. */
  debounceMs?: number;
  signal?: AbortSignal;
  /** Called once chokidar has scanned the tree, so callers (and tests) know saves will be seen. */
  onReady?: () => void;
}

/**
 * What the watcher skips, judged only by the part of the path below `root`: git internals,
 * installed packages and dot-folders or dot-files inside the repository (editor swap files, CI
 * settings) hold no entity files. The folders above the root never count, so a repository that itself
 * lives under a dot-folder (`flagops up` keeps its own in `.flagops/config-repo`) is watched.
 */
export function ignoredUnder(root: string): (path: string) => boolean {
  const base = resolve(root);
  return (path) => {
    const rel = relative(base, resolve(path));
    if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return false;
    return rel.split(sep).some((part) => part === 'node_modules' || part.startsWith('.'));
  };
}

/**
 * Calls `onChange` after saves in the repository settle (debounced), never twice at once: a save
 * during a run schedules one more run afterwards. Resolves when the signal aborts.
 */
export async function watchRepo(dir: string, onChange: (paths: string[]) => Promise<void>, options: WatchOptions = {}): Promise<void> {
  const watcher = watch(dir, {
    ignoreInitial: true,
    ignored: ignoredUnder(dir),
    awaitWriteFinish: { stabilityThreshold: 50, pollInterval: 10 },
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending = new Set<string>();
  let running: Promise<void> | undefined;
  const fire = (): void => {
    timer = undefined;
    if (running) return;
    const paths = [...pending];
    pending = new Set();
    running = onChange(paths).finally(() => {
      running = undefined;
      if (pending.size > 0) fire();
    });
  };
  watcher.on('all', (_event, path) => {
    pending.add(path);
    if (timer) clearTimeout(timer);
    timer = setTimeout(fire, options.debounceMs ?? 200);
  });
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  options.onReady?.();
  await new Promise<void>((resolve) => {
    if (options.signal?.aborted) return resolve();
    options.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  if (timer) clearTimeout(timer);
  await running;
  await watcher.close();
}
