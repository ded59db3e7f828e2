import { escapeControl } from '../core/escape-control.js';
import { isEmptyDelta, planDelta } from '../core/plan-delta.js';
import type { Plan } from '../core/plan.js';
import { renderPlanText } from '../core/render-plan-text.js';
import { DomainError, formatFieldError, InputError } from '../errors.js';
import type { RepoReader } from '../source/repo-reader.js';
import { applyRepo, type ApplyInput, type ApplyReport } from './apply-service.js';
import type { ConsoleClient } from './console-client.js';
import { planAgainstConsole } from './plan-service.js';

export interface WatchCycleOptions {
  desired: RepoReader;
  desiredLabel?: string;
  client: ConsoleClient;
  /** Reconcile continuously: apply every plan that has changes (apply options besides the repo and client). */
  apply?: Omit<ApplyInput, 'desired' | 'client' | 'desiredLabel'>;
  print: (text: string) => void;
}

/**
 * One revalidate-and-replan step of `flagops watch`, remembering the last plan so that each save
 * prints only what changed since then.
 */
export function createWatchCycle(options: WatchCycleOptions): () => Promise<{ plan?: Plan; applied?: ApplyReport }> {
  let last: Plan | undefined;
  let lastErrors = '';
  return async () => {
    let plan: Plan;
    try {
      ({ plan } = await planAgainstConsole({ desired: options.desired, client: options.client, desiredLabel: options.desiredLabel }));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const text =
        error instanceof InputError && error.errors.length > 0
          ? `${escapeControl(error.message)}\n${error.errors.map((e) => `  ${escapeControl(formatFieldError(e))}`).join('\n')}\n`
          : `error: ${escapeControl(error.message)}\n`;
      if (text !== lastErrors) options.print(text);
      lastErrors = text;
      return {};
    }
    if (lastErrors !== '') options.print('The repository validates again.\n');
    lastErrors = '';
    const delta = planDelta(last, plan);
    last = plan;
    if (isEmptyDelta(delta)) options.print(`No new changes since the last plan (${plan.changes.length} pending).\n`);
    else {
      const shown = { ...plan, changes: [...delta.added, ...delta.changed] };
      if (shown.changes.length > 0) options.print(renderPlanText(shown));
      for (const gone of delta.removed) options.print(`= ${escapeControl(`${gone.kind}/${gone.id}`, true)}: no longer differs\n`);
    }
    if (!options.apply || plan.changes.length === 0) return { plan };
    const applied = await applyRepo({ ...options.apply, desired: options.desired, client: options.client, desiredLabel: options.desiredLabel });
    last = applied.replan;
    for (const o of applied.outcomes) options.print(`${escapeControl(`${o.kind}/${o.id} ${o.action}: ${o.status} — ${o.message}`, true)}\n`);
    return { plan, applied };
  };
}

