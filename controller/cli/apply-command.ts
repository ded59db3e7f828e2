import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleGit } from 'simple-git';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { exportable } from '../core/normalize.js';
import { renderPlanText } from '../core/render-plan-text.js';
import { apiKeyFromEnv } from '../config.js';
import { InputError } from '../errors.js';
import { applyRepo, type ApplyEvent, type ApplyReport } from '../reconcile/apply-service.js';
import { ConsoleClient } from '../reconcile/console-client.js';
import { adoptYaml } from '../source/adopt-yaml.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { readRepoConfig } from '../source/load-repo.js';
import { booleanOption, stringOption, type CliIO, type Command } from './command.js';
import { intOption } from './cli-helpers.js';
import { consoleClientFor, oneOf, repoDir } from './reconcile-options.js';

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

/** Progress for people: a bar on a terminal, one plain line per entity otherwise. */
export function progressPrinter(io: CliIO, format: 'text' | 'json'): (event: ApplyEvent) => void {
  return (event) => {
    if (event.type === 'plan') {
      if (format === 'text') io.stdout(renderPlanText(event.plan));
      return;
    }
    if (event.type === 'waiting') {
      io.stderr(`${io.isTTY ? '\n' : ''}waiting: ${event.kind}/${event.id} review ${event.reviewID} waits for ${event.on}\n`);
      return;
    }
    const { outcome, done, total } = event;
    const line = `${outcome.kind}/${outcome.id} ${outcome.action}: ${outcome.status} — ${outcome.message}`;
    if (io.isTTY) {
      const width = 24;
      const filled = Math.round((done / Math.max(total, 1)) * width);
      io.stderr(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${line.slice(0, 80).padEnd(80)}${done === total ? '\n' : ''}`);
    } else io.stderr(`[${done}/${total}] ${line}\n`);
  };
}

export function renderApplyText(report: ApplyReport): string {
  const counts = new Map<string, number>();
  for (const o of report.outcomes) counts.set(o.status, (counts.get(o.status) ?? 0) + 1);
  const lines = report.outcomes.filter((o) => o.status !== 'committed' && o.status !== 'written').map((o) => `  ${o.kind}/${o.id}: ${o.status} — ${o.message}`);
  const summary = [...counts].map(([status, n]) => `${n} ${status}`).join(', ') || 'nothing to do';
  const after = report.replan.changes.length === 0 ? 'the console now matches the repository' : `${report.replan.changes.length} change(s) remain`;
  return `\nApply (plan ${report.planHash}): ${summary}; ${after}.\n${lines.join('\n')}${lines.length ? '\n' : ''}`;
}

export const applyCommand: Command = {
  name: 'apply',
  summary: 'Apply the config repository: review submissions, approval, validation, commit',
  usage: `Usage: flagops apply [DIR] [--console URL] [--approver-key-env NAME] [--prune] [--force]
                     [--format text|json] [--wait-timeout SECONDS]

  Turns the plan into console changes: one review per gate, dynamic config, segment or experiment change
  (its description names the plan hash and the git commit), approved with the key in the variable
  --approver-key-env (or flagops.yaml apply.approverKeyEnv) names — never the submitter's key — or by
  people (apply shows which reviews wait), then committed and followed through pre-commit validation.
  Layers, holdouts, AI configs and assignment sources are written directly. Creates go in dependency
  order, deletes in reverse; a failed entity blocks only its dependents. Drift follows the entity's
  policy (detect, heal, adopt). --prune deletes managed entities no file declares, refused above
  prune.maxDeletes unless --force. Exit 0 only when every change is committed and the re-plan is empty.`,
  options: {
    console: { type: 'string' },
    'approver-key-env': { type: 'string' },
    prune: { type: 'boolean' },
    force: { type: 'boolean' },
    format: { type: 'string', default: 'text' },
    'wait-timeout': { type: 'string', default: '1800' },
  },
  allowPositionals: true,
  async run(args, io) {
    const format = oneOf(args, 'format', ['text', 'json']);
    const dir = repoDir(args, io);
    const desired = new FsRepoReader(dir);
    const config = await readRepoConfig(desired);
    const client = consoleClientFor(args, io, config);
    const approverEnv = stringOption(args, 'approver-key-env') ?? config.apply.approverKeyEnv;
    let approver: ConsoleClient | undefined;
    if (approverEnv !== undefined) {
      const key = apiKeyFromEnv(io.env, approverEnv);
      if (key === undefined) throw new InputError(`No approver key: set ${approverEnv}.`, [{ property: approverEnv, errorMessage: 'is not set' }]);
      if (key === apiKeyFromEnv(io.env, config.console.apiKeyEnv)) {
        throw new InputError('The approver key must belong to another user than the submitting key.', [{ property: approverEnv, errorMessage: `holds the same key as ${config.console.apiKeyEnv}` }]);
      }
      approver = new ConsoleClient({ baseUrl: client.baseUrl, apiKey: key, signal: io.signal });
    }
    const report = await applyRepo({
      desired,
      desiredLabel: args.positionals[0] ?? '.',
      client,
      approver,
      prune: booleanOption(args, 'prune'),
      force: booleanOption(args, 'force'),
      commit: await gitCommitOf(dir),
      waitTimeoutMs: intOption(args, 'wait-timeout', 1, 7 * 24 * 3600) * 1000,
      onEvent: progressPrinter(io, format),
      adopt: async (change, live) => {
        const entry = ENTITY_SCHEMAS.find((e) => e.folder === change.kind);
        if (!entry || !change.file) throw new InputError(`Cannot adopt ${change.kind}/${change.id}: no file.`);
        const path = join(dir, change.file);
        const text = await readFile(path, 'utf8');
        const defaults = entry.defaults;
        await writeFile(path, adoptYaml(text, exportable(entry, live), (key, node) => key in defaults && JSON.stringify((node as { toJSON?: () => unknown } | null)?.toJSON?.()) === JSON.stringify(defaults[key])));
      },
    });
    if (format === 'json') {
      io.stdout(`${JSON.stringify({ planHash: report.planHash, summary: report.plan.summary, outcomes: report.outcomes, replan: { summary: report.replan.summary, changes: report.replan.changes.length }, ok: report.ok }, null, 2)}\n`);
    } else io.stdout(renderApplyText(report));
    return report.ok ? 0 : 1;
  },
};
