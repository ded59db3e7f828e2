/** One measure of bench:eval: its figure, its target, and whether the figure meets it. */
export interface BenchRow {
  section: string;
  measure: string;
  figure: string;
  target: string;
  ok: boolean;
}

/** The rows as one markdown table, each marked met or missed. */
export function renderRows(rows: readonly BenchRow[]): string {
  return [
    '| section | measure | figure | target | |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.section} | ${r.measure} | ${r.figure} | ${r.target} | ${r.ok ? 'met' : '**missed**'} |`),
  ].join('\n');
}
