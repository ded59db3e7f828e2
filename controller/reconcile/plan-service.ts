import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { driftByTime } from '../core/drift-by-time.js';
import { ownedPathsOf } from '../core/console-owned.js';
import { buildPlan, limitToTargets, type LiveEntity, type LiveState, type Plan } from '../core/plan.js';
import { withPolicyVerdicts } from '../core/plan-policies.js';
import { diagnosticFieldError } from '../core/render-diagnostics.js';
import { InputError } from '../errors.js';
import { hasErrors, loadRepo, type LoadedRepo } from '../source/load-repo.js';
import type { RepoReader } from '../source/repo-reader.js';
import type { ConsoleClient } from './console-client.js';
import { unreadBaseWarning } from './unread-base-warning.js';

export interface PlanResult {
  plan: Plan;
  /** The desired repository as loaded (its warnings are worth showing). */
  repo: LoadedRepo;
  /** What the plan was compared with (a saved plan records each live entity's version). */
  live: LiveState;
  /** The console user of the client, for a plan against a console. */
  identity?: string;
}

export interface PlanInput {
  desired: RepoReader;
  /** Overrides flagops.yaml prune.enabled for this run (`--prune`). */
  prune?: boolean;
  /** Shown in the plan instead of the reader's label (e.g. the directory as the user typed it). */
  desiredLabel?: string;
  /** The repository as already loaded from `desired` (apply's re-plan checks what it applied). */
  loaded?: LoadedRepo;
  /** `--target kind/id`: only these entities' changes are planned. */
  targets?: readonly string[];
  /** The time policies are judged at (freeze windows); now when left out. */
  now?: number;
}

/**
 * `--target` values must name an entity of a known kind that the repository or the live side has: a
 * typo would otherwise plan nothing and look like success.
 */
export function checkTargets(targets: readonly string[], repo: LoadedRepo, live: LiveState): void {
  const errors = targets.flatMap((target) => {
    const slash = target.indexOf('/');
    const folder = target.slice(0, slash);
    const id = target.slice(slash + 1);
    if (slash <= 0 || id === '' || !ENTITY_SCHEMAS.some((e) => e.folder === folder)) {
      return [{ property: '--target', errorMessage: `'${target}' is not KIND/ID with KIND one of ${ENTITY_SCHEMAS.map((e) => e.folder).join(', ')}` }];
    }
    const known = repo.entities.some((e) => e.folder === folder && e.id === id) || (live.entities.get(folder) ?? []).some((e) => e.id === id);
    return known ? [] : [{ property: '--target', errorMessage: `'${target}' is neither declared by a file nor present in ${live.label}` }];
  });
  if (errors.length > 0) throw new InputError('Invalid option.', errors);
}

/** An invalid repository is never planned: every error, placed at file:line:col, becomes the InputError's list. */
export function throwIfRepoInvalid(repo: LoadedRepo): void {
  if (!hasErrors(repo.diagnostics)) return;
  const errors = repo.diagnostics.filter((d) => d.severity === 'error');
  throw new InputError(
    `${repo.label} does not validate (${errors.length} error${errors.length === 1 ? '' : 's'}); run flagops validate.`,
    errors.map(diagnosticFieldError),
  );
}

/** Reads every live entity of every kind over the console's HTTP API (kinds in parallel, pages in order). */
export async function readConsoleState(client: ConsoleClient): Promise<LiveState> {
  const lists = await Promise.all(
    ENTITY_SCHEMAS.map(async (entry) => {
      const items = await client.listEntities(entry);
      return [entry.folder, items.map((data): LiveEntity => ({ id: String(data[entry.idField]), data }))] as const;
    }),
  );
  return { label: client.baseUrl, source: 'console', entities: new Map(lists) };
}

/** The state of the repository at another ref, as the "live" side of a pull-request preview. */
export function repoState(repo: LoadedRepo): LiveState {
  const entities = new Map<string, LiveEntity[]>();
  for (const entity of repo.entities) {
    let list = entities.get(entity.folder);
    if (!list) entities.set(entity.folder, (list = []));
    list.push({ id: entity.id, data: entity.data, file: entity.file });
  }
  return { label: repo.label, source: 'files', entities };
}

/** Who the client acts as: the identity whose changes are flagops' own (anything else is drift). */
async function identityOf(client: ConsoleClient): Promise<string> {
  const me = (await client.request<{ userEmail?: unknown }>('GET', '/console/v1/whoami')).data;
  return String(me?.userEmail ?? '');
}

async function planWith(input: PlanInput, readLive: () => Promise<LiveState>, identity?: () => Promise<string>): Promise<PlanResult> {
  // Files and the live side are read concurrently; an invalid repository is reported before a console error.
  const [repoResult, liveResult, identityResult] = await Promise.allSettled([input.loaded ?? loadRepo(input.desired), readLive(), identity?.()]);
  if (repoResult.status === 'rejected') throw repoResult.reason;
  const repo = repoResult.value;
  throwIfRepoInvalid(repo);
  if (liveResult.status === 'rejected') throw liveResult.reason;
  const live = liveResult.value;
  if (identityResult.status === 'rejected') throw identityResult.reason;
  const prune = { ...repo.config.prune, enabled: input.prune === true || repo.config.prune.enabled };
  const { drift: driftConfig } = repo.config;
  const fileDrift = new Map(repo.entities.filter((e) => e.drift !== undefined).map((e) => [`${e.folder}/${e.id}`, e.drift]));
  const drift =
    identityResult.value === undefined
      ? undefined
      : {
          identity: identityResult.value,
          policyOf: (folder: string, id: string) => fileDrift.get(`${folder}/${id}`) ?? driftConfig.entities[`${folder}/${id}`] ?? driftConfig.default,
        };
  if (input.targets && input.targets.length > 0) checkTargets(input.targets, repo, live);
  const ownership = repo.config.ownership.console;
  let plan = buildPlan(input.desiredLabel ?? repo.label, repo.entities, live, { prune, drift, owned: (folder, id) => ownedPathsOf(ownership, folder, id) });
  const drifted = plan.changes.flatMap((change) => (change.action === 'drift' && change.file !== null ? [change.file] : []));
  // Only drift asks git: a plan without it costs no git command.
  if (drifted.length > 0 && input.desired.changedAt) plan = driftByTime(plan, live, await input.desired.changedAt(drifted));
  plan = withPolicyVerdicts(plan, repo.entities, live, { ...repo.config.bridge, schemas: repo.config.policies.schemas }, input.now ?? Date.now());
  return { plan: limitToTargets(plan, input.targets ?? []), repo, live, ...(identityResult.value === undefined ? {} : { identity: identityResult.value }) };
}

/** What applying the repository would change in the console. */
export function planAgainstConsole(input: PlanInput & { client: ConsoleClient }): Promise<PlanResult> {
  return planWith(input, () => readConsoleState(input.client), () => identityOf(input.client));
}

/**
 * A pull-request preview without a console: what the head ref (or working tree) changes compared with
 * the base ref. The base need not validate (a head that fixes an invalid base still previews); the
 * plan warns about the base files that declared nothing because of it.
 */
export function planBetweenRefs(input: PlanInput & { base: RepoReader }): Promise<PlanResult> {
  return planWith(input, async () => {
    const base = await loadRepo(input.base);
    const warning = unreadBaseWarning(base);
    return { ...repoState(base), ...(warning === undefined ? {} : { warnings: [warning] }) };
  });
}
