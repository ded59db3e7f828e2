import { EvalUserSchema, type EvaluationResult } from '../../schemas/evaluation.js';
import { explain, renderExplanation, type ExplainedEvaluation } from '../core/eval/explain.js';
import { FilesEvaluator } from '../core/eval/files-evaluator.js';
import { evaluateFlag } from '../core/eval/flag-keys.js';
import { parseWith } from '../core/zod-errors.js';
import { engineCapabilities } from '../console/evaluation/engine-capabilities.js';
import { InputError, NotFoundError } from '../errors.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { hasErrors, loadRepo } from '../source/load-repo.js';
import { renderDiagnosticsText, summarize } from '../core/render-diagnostics.js';
import { resolve } from 'node:path';
import { consoleClientWithKeyFrom, consoleUrlOf, keyFromEnv } from './cli-helpers.js';
import { stringOption, type Command } from './command.js';
import { oneOf, READ_OPTIONS, READ_OPTIONS_USAGE, readOptions } from './reconcile-options.js';

export const evalCommand: Command = {
  name: 'eval',
  summary: 'Evaluate a flag for a user: the value, the deciding rule and why earlier rules did not match',
  usage: `Usage: flagops eval FLAG --user JSON [--environment ENV] [DIR | --console URL] [--format text|json]

  FLAG is a gate, dynamic config, experiment or layer id, or KIND/ID (gates/ID, dynamic_configs/ID,
  experiments/ID, layers/ID) where kinds share the id. --user is the user as JSON:
  '{"userID":"42","email":"a@acme.example","country":"DE","custom":{"plan":"gold"},"customIDs":{"companyID":"acme"}}'
  (fields userID, email, ip, userAgent, country, locale, appVersion, custom, customIDs).
  --environment evaluates in that environment; without it, rules limited to environments do not apply.
  Evaluates the repository in DIR (default: the current directory) with the same engine the console
  serves, or with --console URL what the live console holds (the key from $FLAGOPS_API_KEY; any
  CONSOLE key with read permission). Prints the value, the deciding rule and, for every rule evaluated,
  each condition with the user's value and whether it passed. Exit 0; 1 on bad input, an unknown flag
  or an invalid repository.
${READ_OPTIONS_USAGE}`,
  options: {
    user: { type: 'string' },
    environment: { type: 'string' },
    console: { type: 'string' },
    format: { type: 'string', default: 'text' },
    ...READ_OPTIONS,
  },
  allowPositionals: true,
  async run(args, io) {
    const format = oneOf(args, 'format', ['text', 'json']);
    const [flag, dirArg, ...extra] = args.positionals;
    if (flag === undefined || flag === '') throw new InputError('Missing argument.', [{ property: 'FLAG', errorMessage: 'name the flag to evaluate: an id or KIND/ID' }]);
    if (extra.length > 0) throw new InputError('Too many arguments.', [{ property: 'DIR', errorMessage: 'give at most one directory' }]);
    const user = parseUser(stringOption(args, 'user'));
    const environment = stringOption(args, 'environment') ?? null;
    if (environment === '') throw new InputError('Invalid option.', [{ property: '--environment', errorMessage: 'must not be empty' }]);
    const consoleUrl = stringOption(args, 'console');
    let result: ExplainedEvaluation | EvaluationResult;
    if (consoleUrl !== undefined) {
      if (dirArg !== undefined) throw new InputError('Too many arguments.', [{ property: 'DIR', errorMessage: 'give a directory or --console, not both' }]);
      const client = consoleClientWithKeyFrom('FLAGOPS_API_KEY', {
        baseUrl: consoleUrlOf(consoleUrl, consoleUrl),
        apiKey: keyFromEnv(io.env, 'FLAGOPS_API_KEY', 'console API key', '--console needs a CONSOLE key'),
        signal: io.signal,
      });
      result = (await client.request<EvaluationResult>('POST', '/console/v1/evaluate', { flag, user, environment })).data as EvaluationResult;
    } else {
      const dir = resolve(io.cwd, dirArg ?? '.');
      const repo = await loadRepo(new FsRepoReader(dir, undefined, readOptions(args, io)));
      if (hasErrors(repo.diagnostics)) {
        io.stderr(renderDiagnosticsText(repo.diagnostics.filter((d) => d.severity === 'error'), summarize(repo.diagnostics, repo.fileCount, repo.entities.length)));
        return 1;
      }
      const { index, evaluator } = new FilesEvaluator(repo.entities, engineCapabilities()).in(environment);
      const found = index.lookup(flag);
      if ('error' in found) {
        if (found.error === 'not_found') throw new NotFoundError(`${found.message} (in ${dir})`);
        throw new InputError('Ambiguous flag.', [{ property: 'FLAG', errorMessage: found.message }]);
      }
      const { evaluation, value } = evaluateFlag(evaluator, found.found, user);
      result = explain(flag, found.found, environment, evaluation, value);
    }
    io.stdout(format === 'json' ? `${JSON.stringify(result, null, 2)}\n` : renderExplanation(result as ExplainedEvaluation));
    return 0;
  },
};

function parseUser(text: string | undefined): Record<string, unknown> {
  if (text === undefined) throw new InputError('Missing option.', [{ property: '--user', errorMessage: 'give the user as JSON, e.g. --user \'{"userID":"42"}\'' }]);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputError('Invalid option.', [{ property: '--user', errorMessage: `is not JSON: ${(error as Error).message}` }]);
  }
  const parsed = parseWith(EvalUserSchema, value);
  if (!parsed.ok) throw new InputError('Invalid option.', parsed.errors.map((e) => ({ property: `--user${e.property ? `.${e.property}` : ''}`, errorMessage: e.errorMessage })));
  return parsed.value;
}
