/**
 * A targeting condition in words, for the rule summaries of the entity pages: "Email ends with any
 * of @acme.example". Types and operators the table does not know are shown as they are written.
 */

export interface ConditionLike {
  type: string;
  operator?: string | null;
  targetValue?: unknown;
  field?: string | null;
  customID?: string | null;
}

const SUBJECTS: Record<string, string> = {
  user_id: 'User ID',
  unit_id: 'Unit ID',
  email: 'Email',
  country: 'Country',
  ip_address: 'IP address',
  app_version: 'App version',
  browser_name: 'Browser',
  browser_version: 'Browser version',
  os_name: 'Operating system',
  os_version: 'OS version',
  device_model: 'Device model',
  locale: 'Locale',
  environment_tier: 'Environment tier',
  target_app: 'Target app',
  time: 'Time',
};

const OPERATORS: Record<string, string> = {
  any: 'is any of',
  none: 'is none of',
  any_case_sensitive: 'is any of (case-sensitive)',
  none_case_sensitive: 'is none of (case-sensitive)',
  str_starts_with_any: 'starts with any of',
  str_ends_with_any: 'ends with any of',
  str_contains_any: 'contains any of',
  str_contains_none: 'contains none of',
  str_matches: 'matches',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  eq: '=',
  neq: '≠',
  version_gt: 'version >',
  version_gte: 'version ≥',
  version_lt: 'version <',
  version_lte: 'version ≤',
  version_eq: 'version =',
  version_neq: 'version ≠',
  before: 'is before',
  after: 'is after',
  on: 'is on',
  array_contains_any: 'contains any of',
  array_contains_none: 'contains none of',
  array_contains_all: 'contains all of',
  not_array_contains_all: 'does not contain all of',
  in_segment_list: 'is in the id list',
  not_in_segment_list: 'is not in the id list',
};

function values(target: unknown): string {
  const list = Array.isArray(target) ? target : target === undefined || target === null ? [] : [target];
  if (list.length === 0) return '(nothing)';
  const shown = list.slice(0, 8).map((v) => String(v));
  return list.length > shown.length ? `${shown.join(', ')} and ${list.length - shown.length} more` : shown.join(', ');
}

/** The condition as a sentence fragment. */
export function conditionInWords(condition: ConditionLike): string {
  const { type, operator, targetValue, field, customID } = condition;
  switch (type) {
    case 'public':
      return 'Everyone';
    case 'passes_gate':
      return `Passes gate ${values(targetValue)}`;
    case 'fails_gate':
      return `Fails gate ${values(targetValue)}`;
    case 'passes_segment':
      return `In segment ${values(targetValue)}`;
    case 'fails_segment':
      return `Not in segment ${values(targetValue)}`;
    default:
      break;
  }
  const subject = type === 'custom_field' ? `Custom field ${field ?? '(unnamed)'}` : type === 'unit_id' && customID ? `Unit ID (${customID})` : (SUBJECTS[type] ?? type);
  const verb = operator ? (OPERATORS[operator] ?? operator) : 'is';
  return `${subject} ${verb} ${values(targetValue)}`;
}
