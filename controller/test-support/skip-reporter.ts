/**
 * A reporter listed after the default one, so its lines close the run: what the global setup
 * started, and every suite skipped for want of PostgreSQL or a browser, with the command that runs it.
 */
import type { RunnerTask, RunnerTestFile } from 'vitest';
import type { Reporter } from 'vitest/reporters';
import { ENVIRONMENT_REPORT_ENV, NEEDS_CHROMIUM, NEEDS_POSTGRES, renderEnvironmentReport, type EnvironmentReport, type SkippedSuite } from './skip-report.js';

function collectSkipped(task: RunnerTask, file: string, out: SkippedSuite[]): void {
  if (task.type === 'suite' && task.mode === 'skip' && (task.name.endsWith(`[${NEEDS_POSTGRES}]`) || task.name.endsWith(`[${NEEDS_CHROMIUM}]`))) {
    out.push({ file, name: task.name });
    return;
  }
  if (task.type === 'suite') for (const child of task.tasks) collectSkipped(child, file, out);
}

export class SkipReporter implements Reporter {
  onFinished(files: RunnerTestFile[] = []): void {
    const raw = process.env[ENVIRONMENT_REPORT_ENV];
    if (raw === undefined) return;
    const skipped: SkippedSuite[] = [];
    for (const file of files) for (const task of file.tasks) collectSkipped(task, file.filepath, skipped);
    const lines = renderEnvironmentReport(JSON.parse(raw) as EnvironmentReport, skipped, process.cwd());
    if (lines.length > 0) process.stdout.write(`\n${lines.join('\n')}\n`);
  }
}
