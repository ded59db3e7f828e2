import { renderPlanJson } from '../core/render-plan-json.js';
import { MARKDOWN_BUDGET, renderPlanMarkdown } from '../core/render-plan-markdown.js';
import { renderFlagTestsMarkdown } from '../core/render-flag-tests.js';
import { renderPlanText } from '../core/render-plan-text.js';
import { formatDiagnostic } from '../core/render-diagnostics.js';
import { InputError } from '../errors.js';
import { planHash } from '../reconcile/apply-service.js';
import { planAgainstConsole, planBetweenRefs, type PlanResult } from '../reconcile/plan-service.js';
import { renderSavedPlan, savedPlanOf } from '../reconcile/saved-plan.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { GitRepoReader } from '../source/git-source.js';
import { readRepoConfig } from '../source/load-repo.js';
import { booleanOption, stringOption, type Command } from './command.js';
import { runRepoFlagTests } from './run-repo-flag-tests.js';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { gitCommitOf } from '../source/git-worktree-state.js';
import { colorFor, consoleClientFor, oneOf, READ_OPTIONS, READ_OPTIONS_USAGE, readOptions, repoDir, targetsOption } from './reconcile-options.js';

export const planCommand: Command = {
  name: 'plan',
  summary: 'Show what applying the config repository would change (or what a PR changes)',
  usage: `Usage: flagops plan [DIR] [--console URL] [--base REF [--head REF]] [--format text|markdown|json]
                    [--detailed-exitcode] [--prune] [--target KIND/ID ...] [--out FILE]

  Compares the repository in DIR (default: the current directory) with the live console over its
  HTTP API (URL from flagops.yaml console.url or --console; key from the variable console.apiKeyEnv
  names, default FLAGOPS_API_KEY).
  --base REF compares the repository at --head REF (default: the working tree) with REF instead,
  without a console: a pull-request preview.
  --format markdown is a pull-request comment (with the flag tests' result); --format json is the
  contract of docs/plan-json.md.
  --prune plans deletes of live entities without a file that carry the managed tag (flagops.yaml prune).
  --target KIND/ID (repeatable, e.g. gates/new_checkout) plans only those entities and says what it skips.
  --out FILE saves the plan against the console, with the commit, each config file's hash and each
  live entity's version, for flagops apply FILE (which refuses it once either side has moved).
  Colours on a terminal, unless NO_COLOR is set.
${READ_OPTIONS_USAGE}
  Exit codes: 0 success; 1 error; with --detailed-exitcode, 0 no changes, 2 changes.`,
  options: {
    console: { type: 'string' },
    base: { type: 'string' },
    head: { type: 'string' },
    format: { type: 'string', default: 'text' },
    'detailed-exitcode': { type: 'boolean' },
    prune: { type: 'boolean' },
    target: { type: 'string', multiple: true },
    out: { type: 'string' },
    ...READ_OPTIONS,
  },
  allowPositionals: true,
  async run(args, io) {
    const format = oneOf(args, 'format', ['text', 'markdown', 'json']);
    const dir = repoDir(args, io);
    const label = args.positionals[0] ?? '.';
    const base = stringOption(args, 'base');
    const head = stringOption(args, 'head');
    if (head !== undefined && base === undefined) throw new InputError('Invalid options.', [{ property: '--head', errorMessage: 'needs --base' }]);
    if (base !== undefined && stringOption(args, 'console') !== undefined) {
      throw new InputError('Invalid options.', [{ property: '--console', errorMessage: 'cannot be combined with --base: a ref comparison needs no console' }]);
    }
    const prune = booleanOption(args, 'prune');
    const targets = targetsOption(args);
    const out = stringOption(args, 'out');
    const read = readOptions(args, io);
    if (out !== undefined && base !== undefined) throw new InputError('Invalid options.', [{ property: '--out', errorMessage: 'saves a plan against the console: it cannot be combined with --base' }]);
    let result: PlanResult;
    if (base !== undefined) {
      const desired = head !== undefined ? await GitRepoReader.open(dir, head, { ...read, allowEmpty: true }) : new FsRepoReader(dir, undefined, read);
      result = await planBetweenRefs({ desired, base: await GitRepoReader.open(dir, base, { ...read, allowEmpty: true }), prune, desiredLabel: head !== undefined ? `git ${head}` : label, targets });
    } else {
      const desired = new FsRepoReader(dir, undefined, read);
      const client = consoleClientFor(args, io, await readRepoConfig(desired));
      result = await planAgainstConsole({ desired, client, prune, desiredLabel: label, targets });
      if (out !== undefined) {
        const path = resolve(io.cwd, out);
        const saved = savedPlanOf(result, { directory: dir, console: client.baseUrl, commit: await gitCommitOf(dir), prune, targets, planHash: planHash(result.plan), now: new Date() });
        await writeFile(path, renderSavedPlan(saved));
        io.stderr(`Plan ${saved.planHash} saved to ${out}: flagops apply ${out} applies exactly this plan.\n`);
      }
    }
    for (const d of result.repo.diagnostics) io.stderr(`${formatDiagnostic(d)}\n`);
    const { plan } = result;
    io.stdout(format === 'json' ? renderPlanJson(plan) : format === 'markdown' ? planComment(plan, result) : renderPlanText(plan, { color: colorFor(io) }));
    return booleanOption(args, 'detailed-exitcode') && plan.changes.length > 0 ? 2 : 0;
  },
};

/** The pull-request comment: the plan, then what the flag tests of the desired side say, within the comment's budget. */
function planComment(plan: PlanResult['plan'], result: PlanResult): string {
  const tests = renderFlagTestsMarkdown(runRepoFlagTests(result.repo));
  return `${renderPlanMarkdown(plan, MARKDOWN_BUDGET - tests.length)}${tests}`;
}
