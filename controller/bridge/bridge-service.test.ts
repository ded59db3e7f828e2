import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleGit } from 'simple-git';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError } from '../errors.js';
import { BridgeService, type ChangeValidationClient, type DesiredState, type PrecommitPayload, type ReviewFacts } from './bridge-service.js';
import { GitDesiredState } from './git-desired-state.js';

interface Call {
  reviewID: string;
  validated?: boolean;
  message: string;
}

class RecordingClient implements ChangeValidationClient {
  calls: Call[] = [];
  async progress(reviewID: string, message: string): Promise<void> {
    this.calls.push({ reviewID, message });
  }
  async decide(reviewID: string, validated: boolean, message: string): Promise<void> {
    this.calls.push({ reviewID, validated, message });
  }
}

let dir: string;
let client: RecordingClient;
let policies = {};

async function commitFile(path: string, text: string): Promise<string> {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), text);
  const git = simpleGit(dir);
  await git.add('.');
  await git.commit(`update ${path}`);
  return (await git.revparse(['HEAD'])).trim();
}

interface BridgeOptions {
  repoDir?: string;
  failOpen?: boolean;
  progressAfterMs?: number;
  readDelayMs?: number;
  /** Runs after each read of git, before the bridge sees its result (e.g. a push landing meanwhile). */
  afterRead?: (state: DesiredState, reads: number) => Promise<void>;
  /** Review descriptions by review id; a function to fail the read. */
  descriptions?: Record<string, string> | (() => Promise<string>);
  log?: (line: string) => void;
}

let reads = 0;

function bridge(options: BridgeOptions = {}): BridgeService {
  const git = new GitDesiredState({ repoDir: options.repoDir ?? dir, branch: 'main', parse: (text) => parse(text) as Record<string, unknown> });
  const delay = options.readDelayMs ?? 0;
  const { descriptions } = options;
  const described = async (reviewID: string): Promise<string | undefined> => (typeof descriptions === 'function' ? descriptions() : descriptions?.[reviewID]);
  return new BridgeService({
    source: {
      read: async (folder, id) => {
        if (delay > 0) await new Promise((r) => setTimeout(r, delay));
        const state = await git.read(folder, id);
        reads += 1;
        await options.afterRead?.(state, reads);
        return state;
      },
      contains: (head, commit) => git.contains(head, commit),
    },
    reviews: {
      review: async (reviewID) => {
        const review = held.get(reviewID);
        if (!review) throw new NotFoundError('Review not found.');
        return { ...review, description: await described(reviewID) };
      },
    },
    progressAfterMs: options.progressAfterMs,
    console: client,
    // Field-by-field equality of what the file declares is enough to exercise the bridge's flow.
    compare: (_folder, desired, proposed) => Object.keys(desired).filter((k) => JSON.stringify(desired[k]) !== JSON.stringify(proposed[k])),
    policies: () => policies,
    clock: () => Date.parse('2026-11-23T12:00:00Z'),
    failOpen: options.failOpen ?? false,
    log: options.log ?? (() => undefined),
  });
}

/** The reviews the console holds, by id: what the bridge judges. */
const held = new Map<string, Omit<ReviewFacts, 'description'>>();

/** The review the console holds for this payload, as the console sends it. */
function hold(p: PrecommitPayload): PrecommitPayload {
  const experiment = p.config_type === 'experiment';
  held.set(p.review_id, {
    configType: p.config_type,
    configName: (experiment ? p.experiment_name : p.config_name) ?? '',
    type: p.type,
    // The payload's configs are kept unread by the bridge (unknown to it): here they are the test's own objects.
    oldConfig: ((experiment ? p.old_experiment : p.old_config) as Record<string, unknown> | undefined) ?? null,
    newConfig: ((experiment ? p.new_experiment : p.new_config) as Record<string, unknown> | undefined) ?? null,
  });
  return p;
}

/** A delivery of a review the console holds (registered as such). */
const payload = (overrides: Partial<PrecommitPayload> = {}): PrecommitPayload =>
  hold({
    review_id: 'r1',
    submitter: 'a@x.io',
    committer: 'b@x.io',
    config_type: 'gate',
    config_name: 'checkout',
    type: 'rules',
    old_config: { id: 'checkout', rules: [] },
    new_config: { id: 'checkout', rules: [{ name: 'ramp', passPercentage: 10 }] },
    ...overrides,
  });

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flagops-bridge-'));
  await simpleGit(dir).init(['-b', 'main']).addConfig('user.email', 't@x.io').addConfig('user.name', 'test');
  await commitFile('gates/checkout.yaml', 'id: checkout\nrules:\n  - name: ramp\n    passPercentage: 10\n');
  client = new RecordingClient();
  policies = {};
  reads = 0;
  held.clear();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('BridgeService', () => {
  it('approves a change equal to git at the branch head, naming the commit', async () => {
    const head = (await simpleGit(dir).revparse(['HEAD'])).trim();
    const verdict = await bridge().handle(payload());
    expect(verdict.validated).toBe(true);
    expect(verdict.message).toContain(head.slice(0, 12));
    expect(client.calls.filter((c) => c.validated !== undefined)).toEqual([{ reviewID: 'r1', validated: true, message: verdict.message }]);
  });

  it('sends a progress message before the decision only when the check takes longer than progressAfterMs', async () => {
    await bridge({ progressAfterMs: 1000 }).handle(payload());
    expect(client.calls.map((c) => c.validated)).toEqual([true]);

    client.calls = [];
    await bridge({ progressAfterMs: 20, readDelayMs: 120 }).handle(payload({ review_id: 'slow' }));
    expect(client.calls.map((c) => [c.reviewID, c.validated])).toEqual([
      ['slow', undefined],
      ['slow', true],
    ]);
    expect(client.calls[0]?.message).toBe('flagops bridge: checking gates/checkout against git…');

    client.calls = [];
    await bridge({ progressAfterMs: 0 }).handle(payload({ review_id: 'always' }));
    expect(client.calls.map((c) => c.validated)).toEqual([undefined, true]);
  });

  it('decides after a progress message that is still on its way, never before it', async () => {
    const order: string[] = [];
    client.progress = async (reviewID) => {
      await new Promise((r) => setTimeout(r, 80));
      order.push(`progress ${reviewID}`);
    };
    client.decide = async (reviewID) => void order.push(`decide ${reviewID}`);
    await bridge({ progressAfterMs: 10, readDelayMs: 30 }).handle(payload());
    expect(order).toEqual(['progress r1', 'decide r1']);
  });

  it('rejects a change git does not declare, naming the differing fields', async () => {
    const verdict = await bridge().handle(payload({ new_config: { id: 'checkout', rules: [{ name: 'ramp', passPercentage: 50 }] } }));
    expect(verdict).toMatchObject({ validated: false });
    expect(verdict.message).toMatch(/differs in rules/);
  });

  it("rejects a config_type that only an object's prototype knows, and a protected experiment's lifecycle change", async () => {
    for (const [i, type] of ['constructor', '__proto__', 'toString'].entries()) {
      const verdict = await bridge().handle(payload({ review_id: `p${i}`, config_type: type, config_name: 'ghost', new_config: null }));
      expect(verdict).toMatchObject({ validated: false, message: `Rejected: unknown config_type '${type}'` });
    }
    await commitFile('experiments/exp.yaml', 'id: exp\n');
    policies = { protectedEntities: ['experiments/exp'] };
    const start = payload({ review_id: 'start', config_type: 'experiment', config_name: undefined, experiment_name: 'exp', type: 'start_experiment', old_config: undefined, new_config: undefined });
    expect(await bridge().handle(start)).toMatchObject({ validated: false, message: 'Rejected by policy: experiments/exp is protected by policy: change it outside the webhook flow.' });
  });

  it('rejects an entity absent from git and approves a delete of one', async () => {
    expect((await bridge().handle(payload({ config_name: 'ghost', review_id: 'r2' }))).validated).toBe(false);
    expect((await bridge().handle(payload({ config_name: 'ghost', review_id: 'r3', new_config: null }))).validated).toBe(true);
    expect((await bridge().handle(payload({ review_id: 'r4', new_config: null }))).validated).toBe(false);
  });

  it('follows the branch head: a new commit changes the verdict', async () => {
    const b = bridge();
    await commitFile('gates/checkout.yaml', 'id: checkout\nrules:\n  - name: ramp\n    passPercentage: 50\n');
    expect((await b.handle(payload())).validated).toBe(false);
  });

  it('looks once more at a newly resolved head before rejecting: a change pushed just after the first look is approved', async () => {
    let pushed = '';
    const b = bridge({
      afterRead: async (_state, n) => {
        if (n === 1) pushed = await commitFile('gates/checkout.yaml', 'id: checkout\nrules:\n  - name: ramp\n    passPercentage: 50\n');
      },
    });
    const verdict = await b.handle(payload({ new_config: { id: 'checkout', rules: [{ name: 'ramp', passPercentage: 50 }] } }));
    expect(verdict).toMatchObject({ validated: true, message: `Approved: matches gates/checkout.yaml at ${pushed.slice(0, 12)} on main.` });
    expect(reads).toBe(2);
    expect(client.calls.filter((c) => c.validated !== undefined)).toHaveLength(1);
  });

  it('looks at git once for a change it approves', async () => {
    expect((await bridge().handle(payload())).validated).toBe(true);
    expect(reads).toBe(1);
  });

  it('rejects a change applied from a commit the head does not contain, naming both, after looking once more', async () => {
    const git = simpleGit(dir);
    await git.checkoutLocalBranch('feature');
    const feature = await commitFile('gates/other.yaml', 'id: other\n');
    await git.checkout('main');
    const head = (await git.revparse(['HEAD'])).trim();
    const verdict = await bridge({ descriptions: { r1: `flagops apply: update gates/checkout (plan 0123456789ab, commit ${feature})` } }).handle(payload());
    expect(verdict.validated).toBe(false);
    expect(verdict.message).toBe(
      `Rejected: the change was applied from commit ${feature.slice(0, 12)}, which main at ${head.slice(0, 12)} does not contain; merge it into main (and push it where the bridge fetches from) first.`,
    );
    expect(reads).toBe(2);
  });

  it("takes the applied-from commit from the review's description, never from one the payload adds", async () => {
    const git = simpleGit(dir);
    await git.checkoutLocalBranch('feature');
    const feature = await commitFile('gates/other.yaml', 'id: other\n');
    await git.checkout('main');
    const verdict = await bridge({ descriptions: { r1: `flagops apply: update gates/checkout (plan 0123456789ab, commit ${feature})` } }).handle({ ...payload(), description: 'edited by hand' });
    expect(verdict.validated).toBe(false);
    expect(verdict.message).toContain(`applied from commit ${feature.slice(0, 12)}`);
  });

  it('approves a change applied from a commit that reaches the head between the two looks', async () => {
    const git = simpleGit(dir);
    await git.checkoutLocalBranch('feature');
    const feature = await commitFile('gates/other.yaml', 'id: other\n');
    await git.checkout('main');
    const b = bridge({
      descriptions: { r1: `flagops apply: update gates/checkout (plan 0123456789ab, commit ${feature}+dirty)` },
      afterRead: async (_state, n) => {
        if (n === 1) await git.merge(['--ff-only', 'feature']);
      },
    });
    const verdict = await b.handle(payload());
    expect(verdict).toMatchObject({ validated: true, message: `Approved: matches gates/checkout.yaml at ${feature.slice(0, 12)} on main.` });
  });

  it('approves a change applied from the head or an older commit, and ignores descriptions apply did not write', async () => {
    const git = simpleGit(dir);
    const older = (await git.revparse(['HEAD'])).trim();
    await commitFile('gates/other.yaml', 'id: other\n');
    const descriptions = {
      r1: `flagops apply: update gates/checkout (plan 0123456789ab, commit ${older})`,
      r2: `Raise the ramp (commit ${'f'.repeat(40)})`,
    };
    const b = bridge({ descriptions });
    expect((await b.handle(payload())).validated).toBe(true);
    expect((await b.handle(payload({ review_id: 'r2' }))).validated).toBe(true);
    expect((await b.handle(payload({ review_id: 'r3' }))).validated).toBe(true);
    expect(reads).toBe(3);
  });

  it('rejects, judging nothing, when the review cannot be read or the console holds no such review', async () => {
    const unreadable = await bridge({ descriptions: () => Promise.reject(new Error('console: GET /console/v1/reviews/r1: Forbidden')) }).handle(payload());
    expect(unreadable).toMatchObject({ validated: false, message: 'Rejected: the review could not be read from the console (console: GET /console/v1/reviews/r1: Forbidden); nothing was judged.' });
    const unknown = await bridge().handle({ ...payload(), review_id: 'not-held' });
    expect(unknown).toMatchObject({ validated: false, message: 'Rejected: the console holds no such review; nothing was judged.' });
    expect(reads).toBe(0);
  });

  describe('judges the review the console holds, not the payload', () => {
    /** The console holds a review raising the ramp to 50%, which git does not declare (git holds 10%). */
    const raised = (): PrecommitPayload => payload({ review_id: 'raise', new_config: { id: 'checkout', rules: [{ name: 'ramp', passPercentage: 50 }] } });

    it("rejects a review git does not hold though the payload's new_config is git's version (F1)", async () => {
      const forged = { ...raised(), new_config: { id: 'checkout', rules: [{ name: 'ramp', passPercentage: 10 }] } };
      const verdict = await bridge().handle(forged);
      expect(verdict).toMatchObject({ validated: false });
      expect(verdict.message).toMatch(/differs in rules/);
    });

    it('rejects it though the payload leaves new_config out or sends a malformed one (F2)', async () => {
      const { new_config: _dropped, ...without } = raised();
      expect(await bridge().handle(without)).toMatchObject({ validated: false, message: expect.stringMatching(/differs in rules/) as string });
      const malformed = { ...raised(), new_config: 'x' as unknown as Record<string, unknown> };
      expect(await bridge().handle(malformed)).toMatchObject({ validated: false, message: expect.stringMatching(/differs in rules/) as string });
    });

    it("rejects a payload naming another entity, kind or change type than the review, naming the mismatch (F3)", async () => {
      await commitFile('gates/dark_mode.yaml', 'id: dark_mode\n');
      policies = { protectedEntities: ['gates/checkout'] };
      const b = bridge();
      const other = await b.handle({ ...payload({ review_id: 'f3' }), config_name: 'dark_mode', new_config: { id: 'dark_mode' } });
      expect(other).toEqual({ validated: false, message: "Rejected: the webhook payload does not describe review f3: config_name is 'dark_mode' (the review's: 'checkout').", debugLinks: [] });
      const kind = await b.handle({ ...payload({ review_id: 'kind' }), config_type: 'experiment', config_name: undefined, experiment_name: 'checkout' });
      expect(kind.message).toBe("Rejected: the webhook payload does not describe review kind: config_type is 'experiment' (the review's: 'gate'); config_name is missing (the review's: 'checkout'); experiment_name is 'checkout' (the review's: none).");
      const type = await b.handle({ ...payload({ review_id: 'type' }), type: 'delete' });
      expect(type.message).toBe("Rejected: the webhook payload does not describe review type: type is 'delete' (the review's: 'rules').");
      expect(reads).toBe(0);
      expect(client.calls.filter((c) => c.validated !== undefined).map((c) => [c.reviewID, c.validated])).toEqual([
        ['f3', false],
        ['kind', false],
        ['type', false],
      ]);
    });

    it('approves the review git holds whatever configs the payload carries', async () => {
      const verdict = await bridge().handle({ ...payload(), old_config: null, new_config: { id: 'checkout', rules: [{ name: 'ramp', passPercentage: 99 }] } });
      expect(verdict.validated).toBe(true);
    });
  });

  it('decides once per review even when the webhook arrives twice', async () => {
    const b = bridge();
    const [first, second] = await Promise.all([b.handle(payload()), b.handle(payload())]);
    expect(first).toBe(second);
    expect(client.calls.filter((c) => c.validated !== undefined)).toHaveLength(1);
  });

  it('applies policies before comparing', async () => {
    policies = { protectedEntities: ['gates/checkout'] };
    const verdict = await bridge().handle(payload());
    expect(verdict).toMatchObject({ validated: false });
    expect(verdict.message).toMatch(/protected/);
  });

  it('rejects when git fails, unless failOpen', async () => {
    const missing = mkdtempSync(join(tmpdir(), 'flagops-not-a-repo-'));
    expect((await bridge({ repoDir: missing }).handle(payload())).message).toMatch(/could not read the git repository/);
    const open = await bridge({ repoDir: missing, failOpen: true }).handle(payload());
    expect(open.validated).toBe(true);
    expect(open.message).toMatch(/failOpen/);
    rmSync(missing, { recursive: true, force: true });
  });
});
