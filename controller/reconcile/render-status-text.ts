import { escapeControl } from '../core/escape-control.js';
import type { EntityStatus, StatusReport } from './status-service.js';

/** Names and ids from the repository or the console, on one line: see escapeControl. */
const t = (text: string): string => escapeControl(text, true);

const STATE_TEXT: Record<EntityStatus['state'], string> = { in_sync: 'in sync', drifted: 'drifted', to_create: 'to create', to_update: 'to update', to_delete: 'to delete' };

const when = (time: number): string => `${new Date(time).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** `flagops status` for people: one line per entity, state first, then what is in flight and what was applied. */
export function renderStatusText(report: StatusReport): string {
  const { summary } = report;
  const counts = [
    `${summary.in_sync} in sync`,
    ...(['drifted', 'to_create', 'to_update', 'to_delete'] as const).filter((s) => summary[s] > 0).map((s) => `${summary[s]} ${STATE_TEXT[s]}`),
    ...(summary.pendingReviews > 0 ? [`${summary.pendingReviews} pending review${summary.pendingReviews === 1 ? '' : 's'}`] : []),
  ];
  const locks = report.applyLocks.map((lock) => `apply lock: ${t(lock.name)} held by ${t(lock.heldBy)}${lock.description ? ` (${t(lock.description)})` : ''}, expires ${when(lock.expiresTime)} unless renewed\n`);
  const header = `Status of ${t(report.desired)} against ${t(report.console)} (as ${t(report.identity || 'an unknown user')}): ${counts.join(', ')}.\n${locks.join('')}`;
  if (report.entities.length === 0) return `${header}No entities.\n`;
  const names = report.entities.map((e) => t(`${e.kind}/${e.id}`));
  const width = Math.max(...names.map((n) => n.length));
  const lines = report.entities.map((e, i) => {
    const details: string[] = [];
    if (e.drift) details.push(`changed by ${t(e.drift.lastModifier ?? 'someone else')} (drift policy ${e.drift.policy})`);
    if (e.pendingReview) {
      const r = e.pendingReview;
      details.push(`review ${t(r.reviewID)} ${t(r.status.replace(/_/g, ' '))} (${t(r.action)}${r.submitter ? `, by ${t(r.submitter)}` : ''}${r.fromApply ? ', from flagops apply' : ''})`);
    }
    if (e.lastApplied) {
      const a = e.lastApplied;
      details.push(`applied ${a.commit ? `commit ${t(a.commit.slice(0, 12))}${a.commit.endsWith('+dirty') ? '+dirty' : ''} ` : ''}${when(a.time)}`);
    } else details.push('never applied');
    if (e.consoleOwns.length > 0) details.push(`the console owns ${e.consoleOwns.map(t).join(', ')}`);
    return `  ${(names[i] ?? '').padEnd(width)}  ${STATE_TEXT[e.state].padEnd(9)}  ${details.join('; ')}`;
  });
  return `${header}\n${lines.join('\n')}\n`;
}
