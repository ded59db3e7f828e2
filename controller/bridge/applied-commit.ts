/**
 * apply describes each review as `flagops apply: <action> <kind>/<id> (plan <hash>, …, commit <sha>)`,
 * the sha followed by `+dirty` when the working tree had uncommitted edits on top of it. Only the
 * parenthesised tail is read, so further identifiers before the commit keep it readable.
 */
const APPLY_DESCRIPTION = /^flagops apply: [^\n]*\(plan [^()\n]*, commit ([0-9a-f]{7,64})(?:\+dirty)?\)$/;

/** The git commit a review says it was applied from, or undefined when its description names none. */
export function appliedCommitOf(description: string): string | undefined {
  return APPLY_DESCRIPTION.exec(description.trim())?.[1];
}
