import { DEFAULT_READ_LIMITS, type ReadLimits } from '../../schemas/repo-config.js';
import { escapeControl } from '../core/escape-control.js';
import { diagnosticFieldError } from '../core/render-diagnostics.js';
import { DomainError, InputError } from '../errors.js';
import { problemDiagnostic } from './problem-diagnostic.js';
import type { RepoProblem, RepoReadOptions } from './repo-reader.js';

/** The limits a reader applies on its own: its options over the defaults. */
export function readerLimits(options: RepoReadOptions, configured: Partial<ReadLimits> = {}): ReadLimits {
  return { ...DEFAULT_READ_LIMITS, ...configured, ...options.limits };
}

/** `1048576` → `1 MiB`, `1536` → `1536 bytes`: limits read best in the unit they were probably given in. */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}

export function overFileLimit(size: number | undefined, limit: number): string {
  const what = size === undefined ? 'is larger than' : `is ${formatBytes(size)}, over`;
  return `${what} the limit of ${formatBytes(limit)} per file (limits.maxFileBytes in flagops.yaml or --max-file-size); not read`;
}

/**
 * Counts the bytes a run reads against the repository's limit. The first file that would cross it
 * gets the one problem for the rest: a repository of ten thousand files over the limit is one error.
 */
export class ReadBudget {
  private used = 0;
  private exhausted: RepoProblem | undefined;
  private skipped = 0;

  constructor(
    private readonly limit: number,
    private readonly problems: RepoProblem[],
  ) {}

  /** Whether a file of `size` bytes may still be read; records the problem when not. */
  admit(path: string, size: number): boolean {
    if (!this.exhausted && this.used + size <= this.limit) {
      this.used += size;
      return true;
    }
    if (!this.exhausted) {
      this.exhausted = { path, message: '' };
      this.problems.push(this.exhausted);
    } else this.skipped++;
    const after = this.skipped === 0 ? '' : ` (nor ${this.skipped} more file${this.skipped === 1 ? '' : 's'} after it)`;
    this.exhausted.message = `not read${after}: the repository's files exceed the limit of ${formatBytes(this.limit)} in total (limits.maxRepoBytes in flagops.yaml or --max-repo-size)`;
    return false;
  }
}

/** The error a caller that needs every file gets when some cannot be read: each file as `validate` shows it. */
export function unreadableError(label: string, problems: readonly RepoProblem[]): InputError {
  return new InputError(
    `Cannot read ${problems.length === 1 ? 'a file' : `${problems.length} files`} of ${escapeControl(label)}.`,
    problems.map((p) => diagnosticFieldError(problemDiagnostic(p))),
  );
}

/** Between two files: a run that was asked to stop (SIGTERM, SIGINT) stops with a plain message. */
export function stopIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new DomainError('Interrupted: stopped reading the config repository.');
}
