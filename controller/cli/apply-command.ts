import { readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { escapeControl } from '../core/escape-control.js';
import { renderPlanText } from '../core/render-plan-text.js';
import { apiKeyFromEnv } from '../config.js';
import { ConflictError, InputError } from '../errors.js';
import { applyLockDescription, applyLockName, takeApplyLock } from '../reconcile/apply-lock.js';
import { applyRepo, type ApplyEvent, type ApplyReport } from '../reconcile/apply-service.js';
import type { ConsoleClient } from '../reconcile/console-client.js';
import { parseSavedPlan, verifySavedPlan, type SavedPlan } from '../reconcile/saved-plan.js';
import { adoptEntityFile } from '../source/adopt-entity-file.js';
import { ownedPathsOf } from '../core/console-owned.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { gitCommitOf, worktreeProblems, worktreeState } from '../source/git-worktree-state.js';
import { readRepoConfig } from '../source/load-repo.js';
import { booleanOption, stringOption, type CliIO, type Command, type ParsedArgs } from './command.js';
import { consoleClientWithKeyFrom, intOption, keyFromEnv } from './cli-helpers.js';
import { colorFor, consoleClientFor, oneOf, READ_OPTIONS, READ_OPTIONS_USAGE, readOptions, repoDir, targetsOption } from './reconcile-options.js';

/** Ids and messages from the repository or the console, on one line: see escapeControl. */
const t = (text: string): string => escapeControl(text, true);

/** Progress for people: a bar on a terminal, one plain line per entity otherwise. */
export function progressPrinter(io: CliIO, format: 'text' | 'json'): (event: ApplyEvent) => void {
  return (event) => {
    if (event.type === 'plan') {
      if (format === 'text') io.stdout(renderPlanText(event.plan, { color: colorFor(io) }));
      return;
    }
    if (event.type === 'waiting') {
      io.stderr(`${io.isTTY ? '\n' : ''}waiting: ${t(`${event.kind}/${event.id}`)} review ${t(event.reviewID)} waits for ${t(event.on)}\n`);
      return;
    }
    const { outcome, done, total } = event;
    const line = t(`${outcome.kind}/${outcome.id} ${outcome.action}: ${outcome.status} — ${outcome.message}`);
    if (io.isTTY) {
      const width = 24;
      const filled = Math.round((done / Math.max(total, 1)) * width);
      io.stderr(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${line.slice(0, 80).padEnd(80)}${done === total ? '\n' : ''}`);
    } else io.stderr(`[${done}/${total}] ${line}\n`);
  };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export function renderApplyText(report: ApplyReport, elapsedMs: number): string {
  if (report.declined) return `\nApply cancelled: nothing was applied (plan ${report.planHash}).\n`;
  const counts = new Map<string, number>();
  for (const o of report.outcomes) counts.set(o.status, (counts.get(o.status) ?? 0) + 1);
  const lines = report.outcomes.filter((o) => o.status !== 'committed' && o.status !== 'written').map((o) => `  ${t(`${o.kind}/${o.id}`)}: ${o.status} — ${t(o.message)}`);
  const summary = [...counts].map(([status, n]) => `${n} ${status}`).join(', ') || 'nothing to do';
  const remain = report.replan.changes.filter((c) => !report.outcomes.some((o) => o.kind === c.kind && o.id === c.id && o.status === 'adopted'));
  const unsettled = report.outcomes.filter((o) => o.status !== 'committed' && o.status !== 'written' && o.status !== 'adopted').length;
  // Never "matches" on a run that exits 1: a change that failed here may have been made by someone else.
  const after =
    remain.length > 0
      ? `${remain.length} change${remain.length === 1 ? '' : 's'} remain (${remain.map((c) => `${c.action} ${t(`${c.kind}/${c.id}`)}`).join(', ')})`
      : report.ok || unsettled === 0
        ? 'the console now matches the repository'
        : `the console now matches the repository, but ${unsettled} change${unsettled === 1 ? '' : 's'} of this run did not go through (see below): apply failed`;
  return `\nApply (plan ${report.planHash}): ${summary}; ${after}. Took ${seconds(elapsedMs)}.\n${lines.join('\n')}${lines.length ? '\n' : ''}`;
}

/** `apply FILE`: a positional that is a file (not a directory) is a plan saved by `flagops plan --out`. */
async function savedPlanArg(args: ParsedArgs, io: CliIO): Promise<{ saved: SavedPlan; file: string } | undefined> {
  const [first] = args.positionals;
  if (first === undefined || args.positionals.length > 1) return undefined;
  const path = resolve(io.cwd, first);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  return { saved: parseSavedPlan(await readFile(path, 'utf8'), first), file: first };
}

const NO_TTY = "this is not a terminal, so apply cannot ask for confirmation: pass --auto-approve to apply without asking (CI), or apply a plan saved with flagops plan --out";

export const applyCommand: Command = {
  name: 'apply',
  summary: 'Apply the config repository: review submissions, approval, validation, commit',
  usage: `Usage: flagops apply [DIR | PLANFILE] [--auto-approve] [--console URL] [--approver-key-env NAME]
                     [--prune] [--force] [--target KIND/ID ...] [--allow-dirty]
                     [--format text|json] [--wait-timeout SECONDS] [--lock-timeout SECONDS]

  Turns the plan into console changes: one review per gate, dynamic config, segment or experiment change
  (its description names the plan hash and the git commit), approved with the key in the variable
  --approver-key-env (or flagops.yaml apply.approverKeyEnv) names — never the submitter's key — or by
  people (apply shows which reviews wait), then committed and followed through pre-commit validation.
  Layers, holdouts, AI configs and assignment sources are written directly. Creates go in dependency
  order, deletes in reverse; a failed entity blocks only its dependents. Drift follows the entity's
  policy (detect, heal, adopt). --prune deletes managed entities no file declares, refused above
  prune.maxDeletes unless --force.
  On a terminal apply shows the plan and asks "Apply these N changes? Only 'yes' will be accepted";
  --auto-approve skips the question (CI); without a terminal apply refuses unless --auto-approve.
  PLANFILE, written by flagops plan --out, is applied exactly, without a question: apply refuses it
  (exit 1, naming what moved) when the repository's config files or the console changed since.
  --target KIND/ID (repeatable) applies only those entities and says what it skips.
  apply holds the console's apply lock on the repository and branch while it runs (renewed every
  10 s, released at the end and on Ctrl-C, expiring 30 s after a killed apply stopped renewing it;
  flagops status lists it): a second apply waits for the first with a progress line, then plans
  afresh. --lock-timeout SECONDS (default 600) bounds that wait; 0 fails at once ("locked by …").
  --wait-timeout SECONDS (default 1800) bounds each wait on a review, for an approver or for the
  webhook's decision; an entity still waiting then is reported waiting, its review left open for the
  next run to resume.
  apply refuses a working tree with uncommitted config changes, or a HEAD that is not the branch's
  upstream (origin/<branch>), which the bridge reads; --allow-dirty turns that into a warning.
  SIGINT/SIGTERM stops apply and cancels the reviews it opened; a review an earlier, killed run left
  open is resumed when it proposes the same change, canceled otherwise.
  Exit 0 only when every change is committed and the re-plan is empty (reported drift is a change that
  remains: exit 1).
${READ_OPTIONS_USAGE}`,
  options: {
    ...READ_OPTIONS,
    console: { type: 'string' },
    'approver-key-env': { type: 'string' },
    prune: { type: 'boolean' },
    force: { type: 'boolean' },
    format: { type: 'string', default: 'text' },
    'wait-timeout': { type: 'string', default: '1800' },
    'lock-timeout': { type: 'string', default: '600' },
    'auto-approve': { type: 'boolean' },
    target: { type: 'string', multiple: true },
    'allow-dirty': { type: 'boolean' },
  },
  allowPositionals: true,
  async run(args, io) {
    const started = Date.now();
    const format = oneOf(args, 'format', ['text', 'json']);
    const fromFile = await savedPlanArg(args, io);
    const saved = fromFile?.saved;
    if (saved) {
      const clash = (['prune', 'target'] as const).filter((o) => args.values[o] !== undefined);
      if (clash.length > 0) throw new InputError('Invalid options.', clash.map((o) => ({ property: `--${o}`, errorMessage: `comes from the saved plan ${fromFile.file}; give it to flagops plan --out instead` })));
      const url = stringOption(args, 'console');
      if (url !== undefined && url.replace(/\/+$/, '') !== saved.console) {
        throw new InputError('Invalid options.', [{ property: '--console', errorMessage: `the saved plan ${fromFile.file} was computed against ${saved.console}` }]);
      }
    }
    const autoApprove = booleanOption(args, 'auto-approve');
    if (!saved && !autoApprove && !io.isTTY) throw new InputError('Apply needs a confirmation.', [{ property: '--auto-approve', errorMessage: NO_TTY }]);
    const dir = saved ? saved.directory : repoDir(args, io);
    const desired = new FsRepoReader(dir, undefined, readOptions(args, io));
    const config = await readRepoConfig(desired);
    const client = consoleClientFor(saved ? { ...args, values: { ...args.values, console: saved.console } } : args, io, config);
    const state = await worktreeState(dir);
    const problems = state ? worktreeProblems(state) : [];
    if (problems.length > 0) {
      if (!booleanOption(args, 'allow-dirty')) {
        throw new ConflictError(`Refusing to apply: ${problems.join('; ')}. Or pass --allow-dirty to apply anyway.`);
      }
      for (const problem of problems) io.stderr(`warning: ${t(problem)}.\n`);
    }
    const approverEnv = stringOption(args, 'approver-key-env') ?? config.apply.approverKeyEnv;
    let approver: ConsoleClient | undefined;
    if (approverEnv !== undefined) {
      const key = keyFromEnv(io.env, approverEnv, 'approver key', '--approver-key-env or flagops.yaml apply.approverKeyEnv names it');
      if (key === apiKeyFromEnv(io.env, config.console.apiKeyEnv)) {
        throw new InputError('The approver key must belong to another user than the submitting key.', [{ property: approverEnv, errorMessage: `holds the same key as ${config.console.apiKeyEnv}` }]);
      }
      approver = consoleClientWithKeyFrom(approverEnv, { baseUrl: client.baseUrl, apiKey: key, signal: io.signal });
    }
    const waitTimeoutMs = intOption(args, 'wait-timeout', 1, 7 * 24 * 3600) * 1000;
    const lockTimeoutMs = intOption(args, 'lock-timeout', 0, 7 * 24 * 3600) * 1000;
    const commit = await gitCommitOf(dir);
    // One apply of a repository and branch at a time: a second one waits, then plans against what the first made.
    const lockName = await applyLockName(dir);
    const lock = await takeApplyLock({
      client: client.detached(),
      name: lockName,
      description: applyLockDescription(commit, Date.now()),
      timeoutMs: lockTimeoutMs,
      signal: io.signal,
      onWait: (holder, waitedMs) => io.stderr(`waiting for the apply lock on ${t(lockName)}: ${t(holder)} (waited ${Math.round(waitedMs / 1000)} s of ${lockTimeoutMs / 1000} s)\n`),
    });
    let report: ApplyReport;
    try {
      report = await applyRepo({
        desired,
        desiredLabel: saved ? String(saved.plan['desired'] ?? dir) : (args.positionals[0] ?? '.'),
        client,
        approver,
        prune: saved ? saved.options.prune : booleanOption(args, 'prune'),
        targets: saved ? saved.options.targets : targetsOption(args),
        verify: saved ? (result, hash) => verifySavedPlan(saved, result, hash) : undefined,
        confirm:
          saved || autoApprove
            ? undefined
            : async (plan) => {
                const n = plan.changes.length;
                const answer = await io.prompt?.(`\nApply these ${n} change${n === 1 ? '' : 's'}? Only 'yes' will be accepted: `);
                if (io.signal.aborted) throw new ConflictError('Interrupted: nothing was applied.');
                if (answer === undefined) throw new InputError('Apply needs a confirmation.', [{ property: '--auto-approve', errorMessage: NO_TTY }]);
                return answer.trim() === 'yes';
              },
        signal: io.signal,
        canceler: client.detached(),
        force: booleanOption(args, 'force'),
        commit,
        waitTimeoutMs,
        onEvent: progressPrinter(io, format),
        adopt: async (change, live) => {
          const entry = ENTITY_SCHEMAS.find((e) => e.folder === change.kind);
          if (!entry || !change.file) throw new InputError(`Cannot adopt ${change.kind}/${change.id}: no file.`);
          const path = join(dir, change.file);
          const owned = ownedPathsOf(config.ownership.console, change.kind, change.id);
          await writeFile(path, adoptEntityFile(await readFile(path, 'utf8'), entry, live, config.prune.managedTag, owned));
        },
      });
    } finally {
      await lock.release();
    }
    if (format === 'json') {
      io.stdout(
        `${JSON.stringify({ planHash: report.planHash, summary: report.plan.summary, outcomes: report.outcomes, replan: { summary: report.replan.summary, changes: report.replan.changes.length }, ...(report.declined ? { declined: true } : {}), elapsedMs: Date.now() - started, ok: report.ok }, null, 2)}\n`,
      );
    } else io.stdout(renderApplyText(report, Date.now() - started));
    return report.ok ? 0 : 1;
  },
};
