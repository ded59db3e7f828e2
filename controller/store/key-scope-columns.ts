import type { KeyRecord } from './ports.js';

/** The api_keys columns of a key's type and limits, as both SQL stores hold them (lists as JSON text). */
export interface KeyScopeRow {
  type: string;
  environments: string;
  primary_target_app: string | null;
  secondary_target_apps: string;
}

/** A key's type and limits as column values, in the order type, environments, primary_target_app, secondary_target_apps. */
export function scopeColumns(key: KeyRecord): [string, string, string | null, string] {
  return [key.type, JSON.stringify(key.environments), key.primaryTargetApp, JSON.stringify(key.secondaryTargetApps)];
}

export function scopeFields(row: KeyScopeRow): Pick<KeyRecord, 'type' | 'environments' | 'primaryTargetApp' | 'secondaryTargetApps'> {
  return {
    type: row.type as KeyRecord['type'],
    environments: JSON.parse(row.environments) as string[],
    primaryTargetApp: row.primary_target_app,
    secondaryTargetApps: JSON.parse(row.secondary_target_apps) as string[],
  };
}
