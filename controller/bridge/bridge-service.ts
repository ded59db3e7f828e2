import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import type { PrecommitPayload } from '../../schemas/precommit-payload.js';
import { policyViolations, type BridgePolicies } from '../core/bridge-policies.js';
import { escapeControl } from '../core/escape-control.js';
import { InputError, NotFoundError, UpstreamError } from '../errors.js';
import { appliedCommitOf } from './applied-commit.js';

export type { PrecommitPayload } from '../../schemas/precommit-payload.js';

/** flagops.yaml at the head does not validate: its bridge policies cannot be known, so nothing is approved. */
export class InvalidPoliciesError extends InputError {}

/** What the repository declares for one entity at the configured branch's HEAD. */
export interface DesiredState {
  branch: string;
  commit: string;
  /** Path of the entity's file in the repository. */
  path: string;
  /** The file's entity, or undefined when the repository does not declare it. */
  entity: Record<string, unknown> | undefined;
  /** The bridge policies of flagops.yaml at the same commit, when the repository has one. */
  policies?: BridgePolicies;
  /** The entity's fields the console owns (flagops.yaml's `ownership.console` at the same commit). */
  owned?: readonly string[];
}

export interface DesiredStateSource {
  /** Reads at a head resolved after this call was made, never at one resolved before. */
  read(folder: string, id: string): Promise<DesiredState>;
  /** Whether `commit` is `head` or one of its ancestors; false for a commit the repository does not have. */
  contains(head: string, commit: string): Promise<boolean>;
}

/** A review as the console holds it: the change it will apply when validated, and its description. */
export interface ReviewFacts {
  /** Names the commit apply ran at, for reviews `flagops apply` submitted. */
  description: string | undefined;
  configType: string;
  configName: string;
  /** The change type the webhook is sent for (the review's first); null when it has none. */
  type: string | null;
  oldConfig: Record<string, unknown> | null;
  /** What the entity becomes (read format); null for a delete. */
  newConfig: Record<string, unknown> | null;
}

/** Reads reviews from the console: a NotFoundError for a review it does not hold. */
export interface ReviewReader {
  review(reviewID: string): Promise<ReviewFacts>;
}

/** Answers the console through its change-validation endpoint (`POST /console/v1/change_validation`). */
export interface ChangeValidationClient {
  progress(reviewID: string, message: string): Promise<void>;
  decide(reviewID: string, validated: boolean, message: string, debugLinks: string[]): Promise<void>;
}

/** Field paths where the proposed config differs from the desired one, but for the fields the console owns (empty: equal). */
export type ConfigComparator = (folder: string, desired: Record<string, unknown>, proposed: Record<string, unknown>, owned: readonly string[]) => string[];

export interface BridgeDeps {
  source: DesiredStateSource;
  console: ChangeValidationClient;
  compare: ConfigComparator;
  policies: () => BridgePolicies;
  /** Reads the review each delivery names: what is judged. */
  reviews: ReviewReader;
  clock: () => number;
  /** Approve when git can't be read (with the reason in the message); reject otherwise. */
  failOpen: boolean;
  /** Builds debug links for a decision, e.g. to the file at the commit in the git host's UI. */
  debugLinks?: (state: DesiredState) => string[];
  log: (line: string) => void;
  /**
   * Sends the "checking…" progress message only when the decision takes longer than this (ms; 0:
   * always). A decision ready sooner replaces the message before anyone could read it, so sending it
   * would only cost the console a request and a write per change. Default DEFAULT_PROGRESS_AFTER_MS.
   */
  progressAfterMs?: number;
}

/** A quarter of a second: about when a person looking at the review would notice the wait. */
export const DEFAULT_PROGRESS_AFTER_MS = 250;

export interface Verdict {
  validated: boolean;
  message: string;
  debugLinks: string[];
}

/** Experiment changes that carry no config: it is enough that git declares the experiment. */
const LIFECYCLE_TYPES: readonly string[] = ['start_experiment', 'ship_experiment', 'abandon_experiment'];

/** Folders of the kinds that go through reviews: the only ones the pre-commit webhook is sent for. */
const FOLDERS: Readonly<Record<string, string>> = Object.fromEntries(ENTITY_SCHEMAS.filter((e) => e.reviewable).map((e) => [e.kind, e.folder]));

/**
 * Decides each pre-commit webhook on the review the console holds (read through the console's API,
 * never taken from the payload, which anyone holding the webhook key can write): the review's
 * proposed config must equal what git declares at the branch head and pass the team's policies, and
 * when apply submitted the change, the head must contain the commit apply ran at. A payload that
 * names another entity, kind or change type than the review is rejected. One decision per review,
 * however often the webhook arrives.
 */
export class BridgeService {
  private readonly decided = new Map<string, Promise<Verdict>>();

  constructor(private readonly deps: BridgeDeps) {}

  /** Starts (or joins) the decision for a delivery; resolves when the console has been answered. */
  handle(payload: PrecommitPayload): Promise<Verdict> {
    let pending = this.decided.get(payload.review_id);
    if (!pending) {
      pending = this.run(payload);
      this.decided.set(payload.review_id, pending);
      // A decision that never reached the console must be retried when the webhook is redelivered.
      pending.catch(() => this.decided.delete(payload.review_id));
      // Keep the map bounded: a decided review only needs remembering while redeliveries may come.
      if (this.decided.size > 10_000) this.decided.delete(this.decided.keys().next().value as string);
    }
    return pending;
  }

  private async run(payload: PrecommitPayload): Promise<Verdict> {
    const { deps } = this;
    // Named as the payload says until the review is read: a progress message only, never a verdict.
    const named = `${Object.hasOwn(FOLDERS, payload.config_type) ? FOLDERS[payload.config_type] : payload.config_type}/${payload.config_name ?? payload.experiment_name ?? ''}`;
    const deciding = this.decideOn(payload);
    const progress = this.progressUnlessDecided(payload.review_id, `flagops bridge: checking ${named} against git…`, deciding);
    const { verdict, label } = await deciding;
    // A progress message already on its way lands first: after the decision it would be refused.
    await progress;
    await deps.console.decide(payload.review_id, verdict.validated, verdict.message, verdict.debugLinks);
    deps.log(`review ${payload.review_id} (${label}): ${verdict.validated ? 'approved' : 'rejected'}: ${verdict.message}`);
    return verdict;
  }

  /** Reads the review, checks the payload names it, and judges it. */
  private async decideOn(payload: PrecommitPayload): Promise<{ verdict: Verdict; label: string }> {
    const label = `${payload.config_type}/${payload.config_name ?? payload.experiment_name ?? ''}, ${payload.type}`;
    let review: ReviewFacts;
    try {
      review = await this.deps.reviews.review(payload.review_id);
    } catch (error) {
      const reason = error instanceof NotFoundError ? 'the console holds no such review' : `the review could not be read from the console (${(error as Error).message})`;
      return { verdict: reject(`${reason}; nothing was judged.`), label };
    }
    const reviewLabel = `${review.configType}/${review.configName}, ${review.type ?? 'no change type'}`;
    const mismatches = payloadMismatches(payload, review);
    if (mismatches.length > 0) {
      return { verdict: reject(`the webhook payload does not describe review ${payload.review_id}: ${mismatches.join('; ')}.`), label: reviewLabel };
    }
    // Own keys only: a config_type such as `constructor` must not find a folder on the prototype.
    const folder = Object.hasOwn(FOLDERS, review.configType) ? FOLDERS[review.configType] : undefined;
    if (folder === undefined) return { verdict: reject(`unknown config_type '${review.configType}'`), label: reviewLabel };
    return { verdict: await this.verdict(review, folder), label: `${folder}/${review.configName}, ${review.type ?? 'no change type'}` };
  }

  /** Sends the progress message once `progressAfterMs` passes without a decision; resolves when it is sent or not needed. */
  private progressUnlessDecided(reviewId: string, message: string, deciding: Promise<unknown>): Promise<void> {
    const { deps } = this;
    const send = (): Promise<void> =>
      deps.console.progress(reviewId, message).catch((error: unknown) => {
        deps.log(`progress message for review ${reviewId} failed: ${(error as Error).message}`);
      });
    const after = deps.progressAfterMs ?? DEFAULT_PROGRESS_AFTER_MS;
    if (after <= 0) return send();
    return new Promise<void>((resolve) => {
      let started = false;
      const timer = setTimeout(() => {
        started = true;
        void send().then(resolve);
      }, after);
      const decided = (): void => {
        if (started) return;
        clearTimeout(timer);
        resolve();
      };
      deciding.then(decided, decided);
    });
  }

  private async verdict(review: ReviewFacts, folder: string): Promise<Verdict> {
    const applied = review.description === undefined ? undefined : appliedCommitOf(review.description);
    const first = await this.judge(review, folder, applied);
    if (first.validated) return first;
    // A rejection is final, and the head it saw may predate the change (pushed a moment before the
    // change was submitted, or not fetched yet): look once more, at a head resolved now.
    return this.judge(review, folder, applied);
  }

  private gitFailure(error: unknown): Verdict {
    const reason = `could not read the git repository: ${(error as Error).message}`;
    return this.deps.failOpen ? { validated: true, message: `Approved without a git check (failOpen): ${reason}`, debugLinks: [] } : reject(reason);
  }

  private async judge(review: ReviewFacts, folder: string, commit: string | undefined): Promise<Verdict> {
    const { deps } = this;
    const id = review.configName;
    let state: DesiredState;
    try {
      state = await deps.source.read(folder, id);
    } catch (error) {
      if (error instanceof InvalidPoliciesError) return reject(describe(error));
      if (!(error instanceof UpstreamError)) return reject(`the repository's file for ${folder}/${id} is invalid: ${describe(error)}`);
      return this.gitFailure(error);
    }
    const links = deps.debugLinks?.(state) ?? [];
    const at = `${state.path} at ${state.commit.slice(0, 12)} on ${state.branch}`;
    if (commit !== undefined) {
      let contained: boolean;
      try {
        contained = await deps.source.contains(state.commit, commit);
      } catch (error) {
        if (!(error instanceof UpstreamError)) throw error;
        return this.gitFailure(error);
      }
      if (!contained) {
        return {
          validated: false,
          message: `Rejected: the change was applied from commit ${commit.slice(0, 12)}, which ${state.branch} at ${state.commit.slice(0, 12)} does not contain; merge it into ${state.branch} (and push it where the bridge fetches from) first.`,
          debugLinks: links,
        };
      }
    }
    const type = review.type ?? '';
    // Lifecycle changes (start, ship, abandon) are judged as the entity git declares, not as a config.
    const proposed = LIFECYCLE_TYPES.includes(type) ? undefined : review.newConfig;

    const violations = policyViolations({ folder, id, changeType: type, oldConfig: review.oldConfig, newConfig: proposed ?? null }, state.policies ?? deps.policies(), deps.clock());
    if (violations.length > 0) return { validated: false, message: `Rejected by policy: ${violations.join(' ')}`, debugLinks: links };

    if (proposed === null) {
      return state.entity === undefined
        ? { validated: true, message: `Delete matches git: ${folder}/${id} is absent at ${state.commit.slice(0, 12)} on ${state.branch}.`, debugLinks: links }
        : { validated: false, message: `Rejected: ${at} still declares ${folder}/${id}; delete the file first.`, debugLinks: links };
    }
    if (state.entity === undefined) {
      return { validated: false, message: `Rejected: ${folder}/${id} is not declared in git (${state.path} missing at ${state.commit.slice(0, 12)} on ${state.branch}).`, debugLinks: links };
    }
    if (proposed === undefined) {
      // Lifecycle changes (start, ship, abandon) carry no config: it is enough that git declares the entity.
      return { validated: true, message: `Approved: ${folder}/${id} is declared in ${at}.`, debugLinks: links };
    }
    // A change limited to the fields the console owns matches git: those are the console's to set.
    const differences = deps.compare(folder, state.entity, proposed, state.owned ?? []);
    if (differences.length > 0) {
      const shown = differences.slice(0, 10).join(', ');
      return { validated: false, message: `Rejected: the change does not match ${at}; differs in ${shown}${differences.length > 10 ? `, and ${differences.length - 10} more` : ''}.`, debugLinks: links };
    }
    const owns = state.owned !== undefined && state.owned.length > 0 ? ` (the console owns ${state.owned.join(', ')})` : '';
    return { validated: true, message: `Approved: matches ${at}${owns}.`, debugLinks: links };
  }
}

/** Where the payload disagrees with the review it names: each as `field 'sent' (the review: 'held')`. */
function payloadMismatches(payload: PrecommitPayload, review: ReviewFacts): string[] {
  const mismatches: string[] = [];
  const differ = (field: string, sent: unknown, held: unknown): void => {
    if (sent === held) return;
    const shown = (value: unknown): string => `'${escapeControl(String(value))}'`;
    mismatches.push(`${field} ${sent === undefined ? 'is missing' : `is ${shown(sent)}`} (the review's: ${held === undefined ? 'none' : shown(held)})`);
  };
  differ('config_type', payload.config_type, review.configType);
  if (review.configType === 'experiment') {
    differ('experiment_name', payload.experiment_name, review.configName);
    if (payload.config_name !== undefined) differ('config_name', payload.config_name, undefined);
  } else {
    differ('config_name', payload.config_name, review.configName);
    if (payload.experiment_name !== undefined) differ('experiment_name', payload.experiment_name, undefined);
  }
  differ('type', payload.type, review.type ?? undefined);
  return mismatches;
}

function describe(error: unknown): string {
  const fields = (error as { errors?: { property: string; errorMessage: string }[] }).errors ?? [];
  // A field error without a property (a file's problem) carries its position in its message.
  return [(error as Error).message, ...fields.map((f) => (f.property === '' ? f.errorMessage : `${f.property} ${f.errorMessage}`))].join('; ');
}

function reject(reason: string): Verdict {
  return { validated: false, message: `Rejected: ${reason}`, debugLinks: [] };
}
