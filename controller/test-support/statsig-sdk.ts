import { createRequire } from 'node:module';
import type { ConfigSpecs } from '../core/eval/config-spec-types.js';
import { hashIdForIdList } from '../core/eval/bucket.js';

/**
 * The official `statsig-node` SDK, loaded with given config specs and id lists entirely offline (a
 * data adapter answers its reads; `localMode` forbids the network), so tests and benchmarks compare
 * the engine with the SDK evaluating the very same specs.
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

export { sdkIpToCountry, sdkUserAgentParser } from '../console/evaluation/engine-capabilities.js';
