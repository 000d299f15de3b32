import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { pino } from 'pino';
import type { App } from '../app.ts';
import { withBackgroundJobs } from '../background-jobs.ts';
import { freePort } from '../chain/managed-node.ts';
import { loadConfig } from '../config/config.ts';
import { openServices, type Services } from '../services.ts';
import { startService, stopService } from './service-process.ts';
import { createTestInstallation, type TestInstallation } from './test-services.ts';
import { databaseUrlWithSchema } from './test-store.ts';
import { RATE_LIMIT_GROUPS } from '../http/rate-limit/limits.ts';
import { launchChromium } from './browser.ts';

/**
 * What the wallet app's browser suites share: `wallet-service serve` as a child process (as `npm
 * start` runs it) on its embedded anvil node and store, the test's own services attached to the same
 * installation, the two viewports, and the checks every screen gets (axe-core, a screenshot, no
 * script error, CSP refusal or failed load). The suite launches Chromium itself (testing/browser.ts).
 */
export const VIEWPORTS = [
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  { name: 'desktop', viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false },
] as const;

export const SCREENSHOTS = new URL('../../../../test-output/wallet-app/', import.meta.url).pathname;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface WalletAppService {
  baseUrl: string;
  /** The test's view of the installation, attached to the service's node (as the CLI is). */
  services: Services;
  stop(): Promise<void>;
}

/** Starts the service on a free port with `env` added (e.g. other chains), embedded main chain, the store the run asks for. */
export async function startWalletAppService(extraEnv: NodeJS.ProcessEnv = {}): Promise<WalletAppService> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const installation: TestInstallation = await createTestInstallation({ port, publicUrl: baseUrl });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    WALLET_DATA_DIR: installation.dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    WALLET_PUBLIC_URL: baseUrl,
    WALLET_CHAIN_ETHEREUM: 'off',
    WALLET_CHAIN_POLYGON: 'off',
    LOG_LEVEL: 'warn',
    WALLET_CONFIG: testLimitsConfig(installation.dataDir),
    ...extraEnv,
  };
  if (installation.postgresSchema) env.DATABASE_URL = databaseUrlWithSchema(installation.config.databaseUrl!, installation.postgresSchema);
  let service: ChildProcess | undefined;
  let services: Services | undefined;
  const stop = async () => {
    await services?.close();
    await stopService(service);
    await installation.remove();
  };
  try {
    ({ service } = await startService(env));
    services = await withBackgroundJobs(
      await openServices(loadConfig({ env }), {
        chainMode: 'attach',
        log: pino({ level: 'silent' }),
        ...(installation.postgresSchema ? { postgresSchema: installation.postgresSchema } : {}),
      }),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, services, stop };
}

export type Device = (typeof VIEWPORTS)[number];

/** What a browser suite file shares: one service and one Chromium for the file, and what its pages reported. */
export interface WalletAppSuite {
  readonly service: WalletAppService;
  readonly browser: Browser;
  /** Script errors, console errors and failed loads of every watched page (see watched). */
  readonly problems: string[];
  /** A new browser context at the device's size, as a phone or a desktop. */
  context(device: Device): Promise<BrowserContext>;
  /** For the file's last test: no page had a problem but those `expected` matches (a 404 page asked for on purpose). */
  assertNoProblems(expected?: RegExp): void;
}

/** Starts the service (with `env` added) and Chromium before the file's tests, and stops them after. */
export function walletAppSuite(env: NodeJS.ProcessEnv = {}): WalletAppSuite {
  let service: WalletAppService | undefined;
  let browser: Browser | undefined;
  const problems: string[] = [];
  before(async () => {
    service = await startWalletAppService(env);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
  });
  const suite: WalletAppSuite = {
    get service() {
      return service!;
    },
    get browser() {
      return browser!;
    },
    problems,
    context: (device) => browser!.newContext({ viewport: device.viewport, isMobile: device.isMobile, hasTouch: device.hasTouch }),
    assertNoProblems: (expected) =>
      assert.deepEqual(
        problems.filter((problem) => !expected?.test(problem)),
        [],
      ),
  };
  return suite;
}

/** A config file raising the per-address rate limits: every browser of a test comes from 127.0.0.1, far more often than a client would. */
function testLimitsConfig(dataDir: string): string {
  const file = join(dataDir, 'test-limits.config.json');
  const rateLimits = Object.fromEntries(RATE_LIMIT_GROUPS.map((group) => [group, { max: 1_000_000, timeWindowMs: 60_000, acrossInstances: false }]));
  writeFileSync(file, JSON.stringify({ http: { rateLimits } }), { mode: 0o600 });
  return file;
}

/** The Fastify-inject shape the shared test helpers call, carried over HTTP to the service process. */
export function overHttp(origin: string): App {
  return {
    async inject(request: { method: string; url: string; payload?: object; headers?: Record<string, string> }) {
      const response = await fetch(`${origin}${request.url}`, {
        method: request.method,
        headers: { ...(request.payload ? { 'content-type': 'application/json' } : {}), ...request.headers },
        ...(request.payload ? { body: JSON.stringify(request.payload) } : {}),
      });
      const body = await response.text();
      return { statusCode: response.status, body, headers: Object.fromEntries(response.headers), json: () => JSON.parse(body) };
    },
  } as unknown as App;
}

/** A page whose script errors and console errors (CSP refusals, failed loads) go into `problems`. */
export async function watched(context: BrowserContext, label: string, problems: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`${label} page error: ${error.message}`));
  page.on('console', (message) => {
    // A refused API call is part of a flow (wrong password, expired request); Chromium reports each
    // as a failed load. Failed loads of anything else are caught by the response listener.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`${label} console: ${message.text()}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && !new URL(response.url()).pathname.startsWith('/v2/')) problems.push(`${label}: ${response.status()} ${response.url()}`);
  });
  return page;
}

/** axe-core on the page as it is: no serious or critical violation. Injected through the debugger, which the CSP does not cover. */
export async function assertAccessible(page: Page, screen: string): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> }> } }).axe;
    const report = await axe.run(document);
    return report.violations.map((violation) => ({ id: violation.id, impact: violation.impact, targets: violation.nodes.map((node) => node.target) }));
  });
  const serious = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  assert.deepEqual(serious, [], `${screen}: ${JSON.stringify(serious)}`);
}

/**
 * The accessibility scan of the screen as it is, and its full-page screenshot
 * `<viewport>-<name>.png` when WALLET_TEST_SCREENSHOTS=1 (the docs' pictures; npm test needs none).
 */
export async function screen(page: Page, viewport: string, name: string): Promise<void> {
  await assertAccessible(page, `${viewport} ${name}`);
  if (process.env.WALLET_TEST_SCREENSHOTS === '1') await page.screenshot({ path: `${SCREENSHOTS}${viewport}-${name}.png`, fullPage: true });
}

export async function heading(page: Page, text: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name: text }).waitFor();
}
