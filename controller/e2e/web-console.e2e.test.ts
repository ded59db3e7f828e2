/**
 * The web console in headless Chromium against a real `flagops serve` (the compiled CLI and the built
 * page: `npm run build`, which `npm test` runs first), with a real bridge on a temporary git
 * repository as the pre-commit webhook. Screenshots of the main pages go to the folder printed first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PENDING_VALIDATION_TITLE } from '../../schemas/review.js';
import { createBridge } from '../bridge/create-bridge.js';
import { ruleIdFromName } from '../core/rule-id.js';
import { sharedHttpClient, type SendHttp } from '../net/http-client.js';
import { ConsoleClient } from '../reconcile/console-client.js';
import { launchChromium, seriousAxeViolations, type LaunchedChromium } from '../test-support/chromium.js';
import { apiPathOf, SAMPLE_ENTITIES } from '../test-support/sample-entities.js';
import { runBuiltCli, spawnConsole, type SpawnedConsole } from '../test-support/spawn-console.js';
import { createGitRepo } from '../test-support/git-repo.js';
import { describeWithChromium, testChromiumPath } from '../test-support/test-environment.js';

const WEBHOOK_KEY = 'whk-web-secret';
const INITIAL_MESSAGE = 'Every change is checked against the flags repository.';
const FILES: Record<string, string> = {
  'flagops.yaml': 'console: { url: http://127.0.0.1:1, apiKeyEnv: FLAGOPS_API_KEY }\napply: { approverKeyEnv: FLAGOPS_APPROVER_KEY }\nownership: { console: { gates/checkout: [isEnabled] } }\n',
  'gates/checkout.yaml': `id: checkout
name: checkout
description: New checkout flow
tags: [flagops-managed]
rules:
  - name: ramp
    passPercentage: 10
    conditions: [{ type: public }]
`,
};

const shots = mkdtempSync(join(tmpdir(), 'flagops-web-screenshots-'));
let dir: string;
let repo: string;
let console_: SpawnedConsole;
let bridge: FastifyInstance;
let chromium: LaunchedChromium;
let headCommit: string;
const keys: Record<string, string> = {};
const contexts: BrowserContext[] = [];
/** A review of kill_switch that alice submits, for the read-only and the admin tests. */
let openReview = '';

/** Decisions of the bridge wait here while a test holds them, so the page can be seen mid-validation. */
let held: Promise<void> | undefined;
let release: () => void = () => undefined;
const holdingSend: SendHttp = async (request) => {
  if (held && request.url.pathname === '/console/v1/change_validation' && typeof request.body === 'string' && 'validated' in (JSON.parse(request.body) as object)) await held;
  return sharedHttpClient.send(request);
};

async function api(method: string, path: string, body?: unknown, key = console_.key): Promise<Record<string, unknown>> {
  const res = await fetch(`${console_.url}${path}`, {
    method,
    headers: { 'SERVICE-API-KEY': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

/** A browser context of its own; a step that can't find what it waits for fails within seconds. */
async function newContext(width: number): Promise<BrowserContext> {
  const context = await chromium.browser.newContext({ viewport: { width, height: 900 } });
  context.setDefaultTimeout(10_000);
  contexts.push(context);
  return context;
}

/** A signed-in tab of its own (session storage is per tab), at the given width. */
async function signedIn(key: string, width = 1280): Promise<Page> {
  const context = await newContext(width);
  const page = await context.newPage();
  await page.goto(`${console_.url}/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('whoami').waitFor();
  return page;
}

describeWithChromium('the web console in a browser', () => {
  beforeAll(async () => {
    console.log(`web console screenshots: ${shots}`);
    dir = mkdtempSync(join(tmpdir(), 'flagops-web-'));
    repo = join(dir, 'repo');
    headCommit = await createGitRepo(repo, FILES);

    [console_, chromium] = await Promise.all([spawnConsole({ db: join(dir, 'console.db'), args: ['--webhook-timeout', '30000'] }), launchChromium(testChromiumPath())]);
    for (const [name, email, role, scopes] of [
      ['alice', 'alice@example.com', 'member', []],
      ['bob', 'bob@example.com', 'member', []],
      ['bridge', 'bridge@example.com', 'webhook_receiver', []],
      ['reader', 'reader@example.com', 'read_only', []],
    ] as const) {
      keys[name] = String(((await api('POST', '/console/v1/keys', { description: name, userEmail: email, role, scopes: [...scopes] }))['data'] as Record<string, unknown>)['key']);
    }
    bridge = createBridge({
      repoDir: repo,
      branch: 'main',
      console: new ConsoleClient({ baseUrl: console_.url, apiKey: keys['bridge']!, send: holdingSend }),
      webhookKey: WEBHOOK_KEY,
      failOpen: false,
      progressAfterMs: 0,
      debugLinkTemplate: 'https://git.example.com/flags/blob/{commit}/{path}',
      log: () => undefined,
    }).app;
    const bridgeUrl = await bridge.listen({ port: 0, host: '127.0.0.1' });
    await api('POST', '/console/v1/settings/precommit_webhook', { webhookURL: `${bridgeUrl}/webhook`, webhookKey: WEBHOOK_KEY, initialMessage: INITIAL_MESSAGE });

    // The managed gate arrives the way a team's does: flagops apply, through a review and the bridge.
    const applied = await runBuiltCli(['apply', repo, '--auto-approve', '--console', console_.url], { FLAGOPS_API_KEY: keys['alice']!, FLAGOPS_APPROVER_KEY: keys['bob']! });
    expect(applied.code, applied.stderr.slice(-2000)).toBe(0);
    for (const sample of SAMPLE_ENTITIES) await api('POST', apiPathOf(sample.folder), sample.body);
    // Enough layers for a second page (50 a page).
    await Promise.all(Array.from({ length: 52 }, (_, i) => api('POST', '/console/v1/layers', { id: `layer_${String(i).padStart(2, '0')}`, name: `Layer ${i}` })));
    // Two more versions of a gate, to diff.
    await api('PATCH', '/console/v1/gates/kill_switch', { description: 'Stops the checkout' });
    await api('PATCH', '/console/v1/gates/kill_switch', { description: 'Stops the new checkout', tags: ['ops'] });
  }, 90_000);

  afterAll(async () => {
    release();
    for (const context of contexts) await context.close().catch(() => undefined);
    await chromium?.close();
    await bridge?.close();
    await console_?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('the web console', () => {
    let alice: Page;

    it('signs in with an API key, shows the user and role, and refuses a wrong key where it was typed', async () => {
      const context = await newContext(1280);
      alice = await context.newPage();
      await alice.goto(`${console_.url}/`);
      await alice.getByLabel('API key').fill('console-not-a-key');
      await alice.getByRole('button', { name: 'Sign in' }).click();
      await alice.getByRole('alert').filter({ hasText: 'Sign-in failed (HTTP 401)' }).waitFor();
      await alice.getByLabel('API key').fill(keys['alice']!);
      await alice.getByRole('button', { name: 'Sign in' }).click();
      expect(await alice.getByTestId('whoami').textContent()).toBe('alice@example.com member');
      // The key is in this tab's session storage only, never in the address.
      expect(alice.url()).not.toContain(keys['alice']!);
      expect(await alice.evaluate(() => JSON.stringify(globalThis.localStorage))).not.toContain(keys['alice']!);
    });

    it('lists every kind and shows an entity of each, with search, tag filter and pages', async () => {
      const expected: Record<string, string> = {};
      for (const s of SAMPLE_ENTITIES) expected[s.folder] ??= String(s.body['id'] ?? s.body['name']);
      for (const [folder, id] of Object.entries(expected)) {
        await alice.goto(`${console_.url}/entities/${folder}`);
        await alice.getByRole('link', { name: id, exact: true }).click();
        await alice.getByRole('heading', { level: 1, name: new RegExp(`: ${id}$`) }).waitFor();
        await alice.getByRole('table', { name: `Audit trail of ${id}` }).getByText('create').waitFor();
        expect(await alice.locator('pre.yaml').textContent()).toContain(id);
        expect(await alice.getByRole('alert').count(), `${folder}/${id}`).toBe(0);
      }
      await alice.getByRole('link', { name: 'Gates', exact: true }).click();
      await alice.getByRole('link', { name: 'checkout', exact: true }).waitFor();
      expect(await alice.locator('table.list tbody tr').count()).toBe(3);
      await alice.getByLabel('Tag').fill('flagops-managed');
      await alice.getByRole('button', { name: 'Filter' }).click();
      await alice.waitForURL(/tag=flagops-managed/);
      await alice.getByText('Page 1 of 1 (2 items)').waitFor();
      await alice.getByLabel('Search').fill('redesigned');
      await alice.getByRole('button', { name: 'Filter' }).click();
      await alice.getByText('Page 1 of 1 (1 item)').waitFor();
      expect(await alice.locator('table.list tbody tr').first().textContent()).toContain('new_checkout');
      await alice.getByLabel('Search').fill('');
      await alice.getByLabel('Tag').fill('');
      await alice.getByRole('button', { name: 'Filter' }).click();
      await alice.getByText('Page 1 of 1 (3 items)').waitFor();
      await shot(alice, '1-entity-list');

      await alice.getByRole('link', { name: 'Layers', exact: true }).click();
      await alice.getByText('Page 1 of 2 (53 items)').waitFor();
      await alice.getByRole('button', { name: 'Next' }).click();
      await alice.getByText('Page 2 of 2 (53 items)').waitFor();
      expect(alice.url()).toMatch(/\/entities\/layers\?page=2$/);
      expect(await alice.locator('table.list tbody tr').count()).toBe(3);
      await alice.goBack();
      await alice.getByText('Page 1 of 2 (53 items)').waitFor();
      expect(await alice.locator('table.list tbody tr').count()).toBe(50);
      // A page past the end says so, rather than that there are none; a page that is no whole number is the first.
      await alice.goto(`${console_.url}/entities/layers?page=4`);
      await alice.getByText('Page 4 is past the last page, 2 (53 items)').waitFor();
      expect(await alice.getByText('No layers yet.').count()).toBe(0);
      await alice.getByRole('button', { name: 'Previous' }).click();
      await alice.getByText('Page 2 of 2 (53 items)').waitFor();
      await alice.goto(`${console_.url}/entities/layers?page=2.5`);
      await alice.getByText('Page 1 of 2 (53 items)').waitFor();
      // The filter boxes follow the URL: Back clears what the URL no longer filters by.
      await alice.goto(`${console_.url}/entities/gates`);
      await alice.getByLabel('Search').fill('redesigned');
      await alice.getByRole('button', { name: 'Filter' }).click();
      await alice.getByText('Page 1 of 1 (1 item)').waitFor();
      await alice.goBack();
      await alice.getByText('Page 1 of 1 (3 items)').waitFor();
      expect(await alice.getByLabel('Search').inputValue()).toBe('');
    });

    it('shows a managed gate with the commit of its last apply and the fields the console owns, and diffs any two versions of a gate', async () => {
      await alice.goto(`${console_.url}/entities/gates/checkout`);
      await alice.getByTestId('managed-badge').waitFor();
      expect(await alice.getByTestId('managed-badge').textContent()).toBe('Managed by git · the console owns isEnabled');
      expect(await alice.getByTestId('console-owns-note').textContent()).toContain('the console owns isEnabled: a change made here limited to that field is approved');
      expect(await alice.getByTestId('last-apply').textContent()).toContain(headCommit.slice(0, 12));
      expect(await alice.locator('pre.yaml').textContent()).toContain('passPercentage: 10');

      await alice.goto(`${console_.url}/entities/gates/kill_switch`);
      const diff = alice.getByRole('table', { name: /Changes from version 2 to version 3/ });
      await diff.waitFor();
      expect(await diff.textContent()).toContain('"Stops the checkout"');
      expect(await diff.textContent()).toContain('"Stops the new checkout"');
      await alice.getByLabel('Compare version').selectOption('1');
      const wide = alice.getByRole('table', { name: /Changes from version 1 to version 3/ });
      await wide.waitFor();
      const rows = await wide.locator('tbody th').allTextContents();
      expect(rows).toEqual(expect.arrayContaining(['description', 'tags']));
      await alice.getByRole('table', { name: 'Audit trail of kill_switch' }).getByText('patch').first().waitFor();
      await shot(alice, '2-entity-detail-diff');
    });

    it('shows targeting readably and answers "Try it" as the evaluation endpoint does', async () => {
      await alice.goto(`${console_.url}/entities/gates/checkout`);
      const targeting = alice.locator('section', { has: alice.getByRole('heading', { name: 'Targeting' }) });
      await targeting.getByText('Everyone').waitFor();
      expect(await targeting.getByRole('img', { name: 'ramp passes: 10%' }).count()).toBe(1);
      for (const userID of ['u-1', 'u-2', 'u-3']) {
        await alice.getByLabel('User ID').fill(userID);
        await alice.getByRole('button', { name: 'Evaluate' }).click();
        const expected = (await api('POST', '/console/v1/evaluate', { flag: 'gates/checkout', user: { userID } }))['data'] as Record<string, unknown>;
        await alice.getByTestId('try-it-user').getByText(userID, { exact: true }).waitFor();
        expect(await alice.getByTestId('try-it-value').textContent()).toBe(JSON.stringify(expected['value']));
        const result = await alice.getByTestId('try-it-result').textContent();
        expect(result).toContain(expected['reason'] === 'rule' ? 'rule ramp' : 'the default (no rule matched)');
        expect(result).toMatch(/bucket \d+ of 10000/);
      }
      await shot(alice, '2b-try-it');
      // A mistake in the form is named before anything is sent.
      await alice.getByLabel('Custom fields').fill('{ plan: ');
      await alice.getByRole('button', { name: 'Evaluate' }).click();
      await alice.getByText(/custom.*is not JSON5/).waitFor();
      await alice.getByLabel('Custom fields').fill('');

      await alice.goto(`${console_.url}/entities/experiments/button_color_test`);
      await alice.getByRole('img', { name: /^Groups: / }).waitFor();
      await alice.goto(`${console_.url}/entities/layers/checkout_layer`);
      await alice.getByRole('img', { name: /^Layer allocation: button_color_test / }).waitFor();
      await alice.getByRole('heading', { name: 'Try it' }).waitFor();
    });

    it('takes a change of a git-managed gate from the form through approval and commit to the bridge rejecting it, all on the page', async () => {
      held = new Promise<void>((resolve) => (release = resolve));
      await alice.goto(`${console_.url}/entities/gates/checkout`);
      await alice.getByRole('link', { name: 'Edit and submit for review' }).click();
      const rules = alice.getByLabel('Rules', { exact: true });
      await rules.waitFor();
      // A schema error is caught in the page, naming the field, before anything is sent.
      await rules.fill((await rules.inputValue()).replace('passPercentage: 10', 'passPercentage: 250'));
      await alice.getByRole('button', { name: 'Submit for review' }).click();
      await alice.getByRole('alert').filter({ hasText: 'rules.0.passPercentage' }).waitFor();
      await rules.fill((await rules.inputValue()).replace('passPercentage: 250', 'passPercentage: 50'));
      await alice.getByLabel('Review description').fill('Ramp the new checkout to half');
      await alice.getByRole('button', { name: 'Submit for review' }).click();
      await alice.waitForURL(/\/reviews\/[^/]+$/);
      const reviewUrl = alice.url();
      await alice.getByTestId('review-status').filter({ hasText: 'pending' }).waitFor();
      // Rules matched by id, as the plan matches them: the file never named one, so the console derived it from the name.
      expect(await alice.getByRole('table', { name: /Changes to checkout/ }).locator('tbody tr').allInnerTexts()).toEqual([expect.stringMatching(new RegExp(`^rules\\[id=${ruleIdFromName('ramp')}\\]\\.passPercentage\\s+10\\s+50$`))]);
      expect(await alice.getByText('change type: rules').count()).toBe(1);
      // Her own review: no approve button, but she may cancel it.
      expect(await alice.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      expect(await alice.getByRole('button', { name: 'Cancel review' }).count()).toBe(1);

      const bob = await signedIn(keys['bob']!);
      await bob.goto(reviewUrl);
      await bob.getByRole('button', { name: 'Approve' }).click();
      await bob.getByTestId('review-status').filter({ hasText: 'approved' }).waitFor();

      // Alice's page learns of the approval through the long poll, without a reload.
      await alice.getByRole('button', { name: 'Commit changes', exact: true }).click();
      const banner = alice.getByTestId('validation-banner');
      await banner.getByRole('heading', { name: PENDING_VALIDATION_TITLE }).waitFor();
      await alice.getByTestId('validation-initial-message').filter({ hasText: INITIAL_MESSAGE }).waitFor();
      await alice.getByTestId('validation-message').filter({ hasText: 'flagops bridge: checking gates/checkout against git' }).waitFor();
      expect(await alice.getByRole('button', { name: /bypass/ }).count()).toBe(0);
      expect(await alice.getByText('Committer').count()).toBeGreaterThan(0);
      await shot(alice, '3-review-pending-validation');

      // Bob's page, open all along, follows too.
      await bob.getByTestId('validation-message').filter({ hasText: 'checking gates/checkout' }).waitFor();

      release();
      held = undefined;
      await alice.getByTestId('review-status').filter({ hasText: 'failed webhook validation' }).waitFor({ timeout: 15_000 });
      await banner.getByRole('heading', { name: /rejected this change/ }).waitFor();
      expect(await alice.getByTestId('validation-message').textContent()).toMatch(/does not match gates\/checkout\.yaml/);
      await banner.getByRole('link', { name: 'Desired state in git' }).waitFor();
      expect(await alice.getByRole('button', { name: 'Commit changes', exact: true }).count()).toBe(0);
      await shot(alice, '4-review-rejected');
      await bob.getByTestId('review-status').filter({ hasText: 'failed webhook validation' }).waitFor({ timeout: 15_000 });

      await alice.goto(`${console_.url}/reviews`);
      await alice.getByRole('region', { name: 'Recent decisions' }).getByText('failed webhook validation').waitFor();
    }, 60_000);

    it('shows a read-only key no write buttons and an API error where it happened', async () => {
      const reader = await signedIn(keys['reader']!);
      expect(await reader.getByTestId('whoami').textContent()).toBe('reader@example.com read_only');
      const submitted = (await api('POST', '/console/v1/gates/kill_switch/reviews', { description: 'enable', change: { isEnabled: true } }, keys['alice'])) as { data: { reviewID: string } };
      openReview = submitted.data.reviewID;
      await reader.goto(`${console_.url}/reviews/${openReview}`);
      await reader.getByTestId('review-status').waitFor();
      expect(await reader.getByRole('button').allTextContents()).toEqual(['Sign out']);
      await reader.goto(`${console_.url}/entities/gates/kill_switch`);
      await reader.getByRole('heading', { name: 'Gate: kill_switch' }).waitFor();
      expect(await reader.getByRole('link', { name: 'Edit and submit for review' }).count()).toBe(0);
      // Its edit page, reached by a link, says why it offers no form.
      await reader.goto(`${console_.url}/entities/gates/kill_switch/edit`);
      await reader.getByText('This key cannot submit reviews').waitFor();
      expect(await reader.getByRole('button', { name: /Submit/ }).count()).toBe(0);
      // A kind without reviews has no edit page at all.
      await reader.goto(`${console_.url}/entities/layers/${encodeURIComponent(String(SAMPLE_ENTITIES.find((e) => e.folder === 'layers')?.body['id']))}/edit`);
      await reader.getByRole('heading', { name: 'Page not found' }).waitFor();
      expect(await reader.getByRole('link', { name: 'Admin' }).count()).toBe(0);
      await reader.goto(`${console_.url}/entities/gates/no_such_gate`);
      await reader.getByRole('alert').filter({ hasText: 'HTTP 404' }).waitFor();
      // A key deactivated while signed in: the next request ends the session, and the sign-in page says why.
      const keyID = String(((await api('GET', '/console/v1/whoami', undefined, keys['reader']))['data'] as Record<string, unknown>)['keyID']);
      await api('PATCH', `/console/v1/keys/${keyID}/deactivate`);
      await reader.getByRole('link', { name: 'Gates', exact: true }).click();
      await reader.getByText('The console no longer accepts this key').waitFor();
      await reader.getByLabel('API key').waitFor();
    });

    it('lets an admin approve and commit with bypass, manage settings and keys, the secret shown once', async () => {
      const admin = await signedIn(console_.key);
      await admin.goto(`${console_.url}/reviews/${openReview}`);
      // The tab's title follows the heading the page renders once the review has loaded.
      await expect.poll(() => admin.title()).toBe('Review of gate kill_switch · flagops console');
      await admin.getByRole('button', { name: 'Approve' }).click();
      await admin.getByRole('button', { name: 'Commit changes (bypass validation)' }).click();
      await admin.getByTestId('review-status').filter({ hasText: 'committed' }).waitFor();
      await admin.getByText('validation bypassed').waitFor();
      expect((await api('GET', '/console/v1/gates/kill_switch'))['data']).toMatchObject({ isEnabled: true });

      await admin.getByRole('link', { name: 'Admin', exact: true }).click();
      expect(await admin.getByLabel('Webhook key').inputValue()).toBe('');
      await admin.getByText('A key is set; it is never shown.').waitFor();
      expect(await admin.getByLabel('Initial message').inputValue()).toBe(INITIAL_MESSAGE);
      await admin.getByLabel('Initial message').fill('Checked against git by the bridge.');
      await admin.getByRole('button', { name: 'Save webhook settings' }).click();
      await expect.poll(async () => (await api('GET', '/console/v1/settings/precommit_webhook'))['data']).toMatchObject({ initialMessage: 'Checked against git by the bridge.', hasWebhookKey: true });
      await admin.getByRole('link', { name: 'Keys' }).click();
      await admin.getByLabel('User e-mail').fill('not-an-email');
      await admin.getByRole('button', { name: 'Create key' }).click();
      await admin.getByRole('alert').filter({ hasText: 'userEmail' }).waitFor();
      await admin.getByLabel('User e-mail').fill('carol@example.com');
      await admin.getByRole('button', { name: 'Create key' }).click();
      const secret = await admin.getByTestId('new-secret').inputValue();
      expect(secret).toMatch(/^console-/);
      await admin.getByRole('button', { name: 'Done' }).click();
      await admin.getByRole('cell', { name: 'carol@example.com' }).waitFor();
      expect(await admin.content()).not.toContain(secret);
      expect((await api('GET', '/console/v1/whoami', undefined, secret))['data']).toMatchObject({ userEmail: 'carol@example.com' });
      // An SDK key with environments: its secret's prefix names the type; the table shows type and limits.
      await admin.getByLabel('Type', { exact: true }).selectOption('SERVER');
      await admin.getByLabel(/^Environments/).fill('staging, production');
      await admin.getByRole('button', { name: 'Create key' }).click();
      expect(await admin.getByTestId('new-secret').inputValue()).toMatch(/^secret-/);
      await admin.getByRole('button', { name: 'Done' }).click();
      await admin.getByRole('cell', { name: 'environments: staging, production' }).waitFor();
      await admin.getByRole('cell', { name: 'SERVER', exact: true }).waitFor();
      await api('POST', '/console/v1/roles', { name: 'auditor', permissions: ['read'] });
      await admin.getByRole('link', { name: 'Roles' }).click();
      await admin.getByRole('heading', { name: /webhook_receiver/ }).waitFor();
      // Saving a role says so, and the boxes show what the console then holds.
      await admin.locator('#role-auditor-write').check();
      await admin.getByRole('button', { name: 'Save auditor' }).click();
      await admin.getByText('Role updated successfully.').waitFor();
      expect((await api('GET', '/console/v1/roles/auditor'))['data']).toMatchObject({ permissions: ['read', 'write'] });
      expect(await admin.locator('#role-auditor-write').isChecked()).toBe(true);
    });

    it('browses the OpenAPI document at /docs', async () => {
      await alice.goto(`${console_.url}/docs`);
      await alice.getByRole('heading', { name: 'flagops console API' }).waitFor();
      const commit = alice.locator('details.operation', { has: alice.locator('code', { hasText: /^\/console\/v1\/gates\/\{id\}\/reviews\/\{reviewID\}\/commit$/ }) });
      await commit.locator('summary').click();
      await commit.getByText('bypassValidation').first().waitFor();
      await alice.getByLabel('Filter operations').fill('assignment_source');
      expect(await alice.locator('details.operation summary code').allTextContents()).toEqual(expect.arrayContaining(['/console/v1/experiments/assignment_sources']));
      expect(await alice.locator('details.operation summary code', { hasText: '/console/v1/gates' }).count()).toBe(0);
    });

    it('has no serious accessibility violations, in light and dark, and fits a 390 px screen', async () => {
      const pages = ['/entities/gates', '/entities/gates/kill_switch', '/reviews', '/entities/gates/checkout/edit', '/admin'];
      const admin = await signedIn(console_.key);
      const failures: string[] = [];
      for (const scheme of ['light', 'dark'] as const) {
        await admin.emulateMedia({ colorScheme: scheme });
        for (const path of pages) {
          await admin.goto(`${console_.url}${path}`);
          await admin.locator('h1').first().waitFor();
          await admin.waitForLoadState('networkidle');
          for (const v of await seriousAxeViolations(admin)) failures.push(`${scheme} ${path}: ${v.id} (${v.impact}) ${v.help} at ${JSON.stringify(v.nodes.slice(0, 3).map((n) => n.target))}`);
        }
      }
      // Signed out: the sign-in page and the API docs.
      const visitor = await (await newContext(1280)).newPage();
      for (const path of ['/', '/docs']) {
        await visitor.goto(`${console_.url}${path}`);
        await visitor.locator('h1').first().waitFor();
        await visitor.waitForLoadState('networkidle');
        for (const v of await seriousAxeViolations(visitor)) failures.push(`signed out ${path}: ${v.id} (${v.impact}) ${v.help} at ${JSON.stringify(v.nodes.slice(0, 3).map((n) => n.target))}`);
      }
      expect(failures).toEqual([]);

      const phone = await signedIn(keys['alice']!, 390);
      for (const path of ['/entities/gates', '/entities/gates/kill_switch', '/reviews']) {
        await phone.goto(`${console_.url}${path}`);
        await phone.locator('h1').first().waitFor();
        await phone.waitForLoadState('networkidle');
        const overflow = await phone.evaluate(() => {
          const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
          return root.scrollWidth - root.clientWidth;
        });
        expect(overflow, `${path} scrolls sideways at 390 px`).toBeLessThanOrEqual(0);
      }
      // Keyboard: the skip link is the first stop and moves to the content.
      await phone.keyboard.press('Tab');
      expect(await phone.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document.activeElement.textContent)).toBe('Skip to content');
    }, 60_000);
  });
});
