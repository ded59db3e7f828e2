import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface LaunchedChromium {
  browser: Browser;
  close(): Promise<void>;
}

/**
 * Starts headless Chromium from the given binary (tests: `testChromiumPath()`; scripts:
 * `findChromium`); playwright gives each launch a fresh temporary profile and removes it on close.
 */
export async function launchChromium(executablePath: string): Promise<LaunchedChromium> {
  const browser = await chromium.launch({ executablePath, args: ARGS });
  return { browser, close: () => browser.close() };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** Runs axe-core (its own source, injected into the page) and returns the serious and critical violations. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  const violations = await page.evaluate(async () => {
    // Runs in the page, where axe and document are globals.
    const page = globalThis as unknown as { document: unknown; axe: { run: (context: unknown, options: unknown) => Promise<{ violations: AxeViolation[] }> } };
    const result = await page.axe.run(page.document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
