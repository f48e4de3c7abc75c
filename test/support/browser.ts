import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { REPO_ROOT } from '../../harness/paths.js';

/**
 * The dashboard's browser tests: Debian's Chromium (`make test` installs it) driven by
 * playwright-core, against the real service on a loopback port. The page's
 * Content-Security-Policy stays enforced; axe-core is evaluated through the DevTools protocol,
 * which the policy does not apply to. Screenshots go to .tmp/screenshots (not committed).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = join(REPO_ROOT, '.tmp', 'screenshots');

// Flags that work on this kind of machine: no sandbox as root, no GPU, and none of Chromium's
// background connections (the network is closed: they fail, many at a time).
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export function dashboardBuilt(): void {
  assert.ok(
    existsSync(join(REPO_ROOT, 'dist', 'dashboard', 'index.html')),
    'the dashboard is not built: run `make dashboard` (make test does)',
  );
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: run \`make chromium\` (make test does)`);
}

/** A headless Chromium; playwright gives each launch a fresh, empty user-data directory. */
export async function launchBrowser(): Promise<Browser> {
  dashboardBuilt();
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

export interface DashboardPage {
  page: Page;
  context: BrowserContext;
  /** CSP violations, page errors and alert()s seen so far (each must stay empty). */
  problems: string[];
}

/** A fresh context (its own sessionStorage), recording CSP violations, page errors and dialogs. */
export async function openPage(browser: Browser, baseUrl: string): Promise<DashboardPage> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  const page = await context.newPage();
  const problems: string[] = [];
  await page.exposeFunction('__reportCsp', (text: string) => problems.push(`CSP: ${text}`));
  await page.addInitScript(() => {
    // Runs in the page (the test program has no DOM types).
    type Violation = { violatedDirective: string; blockedURI: string; sourceFile: string; lineNumber: number };
    const g = globalThis as unknown as {
      document: { addEventListener(type: string, f: (e: Violation) => void): void };
      __reportCsp(text: string): void;
    };
    g.document.addEventListener('securitypolicyviolation', (e) =>
      g.__reportCsp(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`),
    );
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.type()} ${d.message()}`);
    void d.dismiss();
  });
  return { page, context, problems };
}

/** Runs axe-core on the page: no serious or critical violation. */
async function assertAccessible(page: Page, name: string): Promise<void> {
  const loaded = await page.evaluate(() => typeof (globalThis as { axe?: unknown }).axe !== 'undefined');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    type Result = { violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] };
    const g = globalThis as unknown as {
      document: unknown;
      axe: { run: (ctx: unknown, opts: unknown) => Promise<Result> };
    };
    const result = await g.axe.run(g.document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(serious, [], `accessibility violations on ${name}`);
}

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Checks a page the way every test visits it: accessible, screenshot taken. */
export async function visited(page: Page, name: string): Promise<void> {
  await page.waitForFunction(
    () =>
      !(globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector(
        '[role="status"].muted',
      ),
  );
  await assertAccessible(page, name);
  await screenshot(page, name);
}

/** The app's main heading, once the page has rendered it. */
export async function heading(page: Page, text: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: text }).waitFor();
}

/** Opens a page from the side navigation and waits for its heading. */
export async function go(page: Page, link: string, title = link): Promise<void> {
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: link, exact: true }).click();
  await heading(page, title);
}
