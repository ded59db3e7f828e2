import type { Plan } from './plan.js';

/** Version of the JSON plan contract (docs/plan-json.md); bumped only for incompatible changes. */
export const PLAN_JSON_VERSION = 1;

/**
 * The machine contract of `flagops plan --format json` (docs/plan-json.md): keys in a fixed order,
 * `old`/`new` always present, null where the field is absent on that side.
 */
export function planToJson(plan: Plan): Record<string, unknown> {
  return {
    formatVersion: PLAN_JSON_VERSION,
    desired: plan.desired,
    live: plan.live,
    summary: {
      create: plan.summary.create,
      update: plan.summary.update,
      delete: plan.summary.delete,
      drift: plan.summary.drift,
      unchanged: plan.summary.unchanged,
      untracked: plan.summary.untracked,
    },
    changes: plan.changes.map((c) => ({
      kind: c.kind,
      id: c.id,
      action: c.action,
      file: c.file,
      fields: c.fields.map((f) => ({ path: f.path, old: f.old ?? null, new: f.new ?? null })),
      ...(c.drift ? { drift: { policy: c.drift.policy, lastModifier: c.drift.lastModifier } } : {}),
      ...(c.lifecycle ? { lifecycle: c.lifecycle } : {}),
      policies: (c.policies ?? []).map((v) => ({ policy: v.policy, verdict: v.verdict, message: v.message, ...(v.property === undefined ? {} : { property: v.property }) })),
    })),
    owned: (plan.owned ?? []).map((o) => ({
      kind: o.kind,
      id: o.id,
      file: o.file,
      fields: o.fields.map((f) => ({ path: f.path, console: f.old ?? null, file: f.new ?? null })),
    })),
    warnings: [...plan.warnings],
  };
}

export function renderPlanJson(plan: Plan): string {
  return `${JSON.stringify(planToJson(plan), null, 2)}\n`;
}
