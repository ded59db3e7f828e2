import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { differencesFromFile } from '../core/plan.js';
import type { ConsoleClient } from '../reconcile/console-client.js';
import { parseEntityText, parseRepoConfigText } from '../source/load-repo.js';
import { parseBridgePolicies } from './parse-bridge-policies.js';
import { BridgeService, type DesiredState } from './bridge-service.js';
import { buildBridgeApp } from './build-bridge-app.js';
import { ConsoleReviewReader } from './console-review-reader.js';
import { consoleValidationClient } from './console-validation-client.js';
import { GitDesiredState } from './git-desired-state.js';

export interface BridgeOptions {
  repoDir: string;
  branch: string;
  subdir?: string;
  console: ConsoleClient;
  webhookKey: string;
  failOpen: boolean;
  /** e.g. https://git.example.com/flags/blob/{commit}/{path}: the debug link of each decision. */
  debugLinkTemplate?: string;
  managedTag?: string;
  logger?: FastifyServerOptions['logger'];
  log: (line: string) => void;
  clock?: () => number;
  /** See BridgeDeps.progressAfterMs. */
  progressAfterMs?: number;
}

/** Wires the bridge: git desired state at the branch head, the same diff plans use, the console's reviews and change-validation endpoint. */
export function createBridge(options: BridgeOptions): { app: FastifyInstance; service: BridgeService } {
  const source = new GitDesiredState({
    repoDir: options.repoDir,
    branch: options.branch,
    subdir: options.subdir,
    parse: parseEntityText,
    // The reader `validate` and the reconciler use: the same errors, placed at file:line:col.
    parsePolicies: parseBridgePolicies,
    parseOwnership: (text) => parseRepoConfigText(text).ownership.console,
  });
  const service = new BridgeService({
    source,
    console: consoleValidationClient(options.console),
    compare: (folder, desired, proposed, owned) => {
      const entry = ENTITY_SCHEMAS.find((e) => e.folder === folder);
      if (!entry) return ['(kind)'];
      return differencesFromFile(entry, desired, proposed, options.managedTag ?? 'flagops-managed', owned).map((f) => f.path);
    },
    policies: () => ({}),
    reviews: new ConsoleReviewReader(options.console),
    clock: options.clock ?? Date.now,
    failOpen: options.failOpen,
    debugLinks: options.debugLinkTemplate
      ? (state: DesiredState) => [options.debugLinkTemplate!.replaceAll('{commit}', state.commit).replaceAll('{path}', state.path).replaceAll('{branch}', state.branch)]
      : undefined,
    log: options.log,
    progressAfterMs: options.progressAfterMs,
  });
  return { app: buildBridgeApp({ service, webhookKey: options.webhookKey, logger: options.logger }), service };
}
