import { policyViolations, type BridgePolicies } from '../core/bridge-policies.js';
import { InputError, UpstreamError } from '../errors.js';
import { appliedCommitOf } from './applied-commit.js';

/** The pre-commit webhook payload of the spec ("Events"). */
export interface PrecommitPayload {
  review_id: string;
  submitter: string;
  committer: string;
  config_type: string;
  config_name?: string;
  experiment_name?: string;
  type: string;
  /** The review's description: not a field of the spec's payload (flagops's console sends none), taken when a sender adds it. */
  description?: string;
  old_config?: Record<string, unknown> | null;
  new_config?: Record<string, unknown> | null;
  old_experiment?: Record<string, unknown> | null;
  new_experiment?: Record<string, unknown> | null;
}

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
}

export interface DesiredStateSource {
  /** Reads at a head resolved after this call was made, never at one resolved before. */
  read(folder: string, id: string): Promise<DesiredState>;
  /** Whether `commit` is `head` or one of its ancestors; false for a commit the repository does not have. */
  contains(head: string, commit: string): Promise<boolean>;
}

/** What the webhook payload lacks of a review: its description, which names the commit apply ran at. */
export interface ReviewReader {
  description(reviewID: string): Promise<string | undefined>;
}

/** Answers the console through its change-validation endpoint (spec endpoint 10). */
export interface ChangeValidationClient {
  progress(reviewID: string, message: string): Promise<void>;
  decide(reviewID: string, validated: boolean, message: string, debugLinks: string[]): Promise<void>;
}

/** Field paths where the proposed config differs from the desired one (empty: equal). */
export type ConfigComparator = (folder: string, desired: Record<string, unknown>, proposed: Record<string, unknown>) => string[];

export interface BridgeDeps {
  source: DesiredStateSource;
  console: ChangeValidationClient;
  compare: ConfigComparator;
  policies: () => BridgePolicies;
  /** Reads each review's description; without it, no decision requires the commit apply ran at. */
  reviews?: ReviewReader;
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

const FOLDERS: Readonly<Record<string, string>> = {
  gate: 'gates',
  dynamic_config: 'dynamic_configs',
  segment: 'segments',
  experiment: 'experiments',
};

/**
 * Decides each pre-commit webhook: the proposed config must equal what git declares at the branch
 * head and pass the team's policies, and when apply submitted the change, the head must contain the
 * commit apply ran at. One decision per review, however often the webhook arrives.
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
    // Own keys only: a config_type such as `constructor` must not find a folder on the prototype.
    const folder = Object.hasOwn(FOLDERS, payload.config_type) ? FOLDERS[payload.config_type] : undefined;
    const id = payload.config_name ?? payload.experiment_name ?? '';
    const deciding = folder === undefined ? Promise.resolve(reject(`unknown config_type '${payload.config_type}'`)) : this.verdict(payload, folder, id);
    const progress = this.progressUnlessDecided(payload.review_id, `flagops bridge: checking ${folder ?? payload.config_type}/${id} against git…`, deciding);
    const verdict = await deciding;
    // A progress message already on its way lands first: after the decision it would be refused.
    await progress;
    await deps.console.decide(payload.review_id, verdict.validated, verdict.message, verdict.debugLinks);
    deps.log(`review ${payload.review_id} (${folder ?? payload.config_type}/${id}, ${payload.type}): ${verdict.validated ? 'approved' : 'rejected'}: ${verdict.message}`);
    return verdict;
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

  private async verdict(payload: PrecommitPayload, folder: string, id: string): Promise<Verdict> {
    // The spec's payload carries no description, so it costs a read of the review, unless a sender adds it.
    const applied = typeof payload.description === 'string' ? Promise.resolve(appliedCommitOf(payload.description)) : this.appliedCommit(payload.review_id);
    const first = await this.judge(payload, folder, id, applied);
    if (first.validated) return first;
    // A rejection is final, and the head it saw may predate the change (pushed a moment before the
    // change was submitted, or not fetched yet): look once more, at a head resolved now.
    return this.judge(payload, folder, id, applied);
  }

  /** The commit apply ran at, from the review's description; undefined for changes made otherwise. */
  private async appliedCommit(reviewID: string): Promise<string | undefined> {
    const { reviews, log } = this.deps;
    if (!reviews) return undefined;
    try {
      const description = await reviews.description(reviewID);
      return description === undefined ? undefined : appliedCommitOf(description);
    } catch (error) {
      log(`review ${reviewID}: cannot read its description (${(error as Error).message}); judging it without the commit it was applied from`);
      return undefined;
    }
  }

  private gitFailure(error: unknown): Verdict {
    const reason = `could not read the git repository: ${(error as Error).message}`;
    return this.deps.failOpen ? { validated: true, message: `Approved without a git check (failOpen): ${reason}`, debugLinks: [] } : reject(reason);
  }

  private async judge(payload: PrecommitPayload, folder: string, id: string, applied: Promise<string | undefined>): Promise<Verdict> {
    const { deps } = this;
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
    const commit = await applied;
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
    const proposed = payload.new_config !== undefined ? payload.new_config : payload.new_experiment;
    const old = payload.old_config !== undefined ? payload.old_config : payload.old_experiment;

    const violations = policyViolations({ folder, id, changeType: payload.type, oldConfig: old ?? null, newConfig: proposed ?? null }, state.policies ?? deps.policies(), deps.clock());
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
    const differences = deps.compare(folder, state.entity, proposed);
    if (differences.length > 0) {
      const shown = differences.slice(0, 10).join(', ');
      return { validated: false, message: `Rejected: the change does not match ${at}; differs in ${shown}${differences.length > 10 ? `, and ${differences.length - 10} more` : ''}.`, debugLinks: links };
    }
    return { validated: true, message: `Approved: matches ${at}.`, debugLinks: links };
  }
}

function describe(error: unknown): string {
  const fields = (error as { errors?: { property: string; errorMessage: string }[] }).errors ?? [];
  // A field error without a property (a file's problem) carries its position in its message.
  return [(error as Error).message, ...fields.map((f) => (f.property === '' ? f.errorMessage : `${f.property} ${f.errorMessage}`))].join('; ');
}

function reject(reason: string): Verdict {
  return { validated: false, message: `Rejected: ${reason}`, debugLinks: [] };
}
