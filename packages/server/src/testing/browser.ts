import { spawnSync } from 'node:child_process';
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/**
 * The Chromium the browser suites drive through playwright-core (which downloads nothing): found
 * where one is installed, and what `npm test` does when none is (scripts/run-tests.mjs acts on
 * planBrowserSuites). A suite marks itself a browser suite by importing this module.
 */

/**
 * Headless, and nothing that reaches out on its own: without the background-networking flags a
 * Chromium run as root on a closed network has its connections refused. playwright-core adds a
 * fresh --user-data-dir to every launch.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Names a Chromium goes by on PATH, in the order they are tried. */
const COMMANDS = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** Where a browser sits inside a Playwright cache entry (`npx playwright install chromium`), newest layouts first. */
const PLAYWRIGHT_EXECUTABLES: Record<string, string[]> = {
  chromium: [
    'chrome-linux64/chrome',
    'chrome-linux-arm64/chrome',
    'chrome-linux/chrome',
    'chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
    'chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
    'chrome-mac/Chromium.app/Contents/MacOS/Chromium',
  ],
  chromium_headless_shell: [
    'chrome-headless-shell-linux64/chrome-headless-shell',
    'chrome-headless-shell-linux-arm64/chrome-headless-shell',
    'chrome-linux/headless_shell',
    'chrome-headless-shell-mac-arm64/chrome-headless-shell',
    'chrome-headless-shell-mac-x64/chrome-headless-shell',
  ],
};

export const HOW_TO_GET_CHROMIUM =
  'install Chromium (apt-get install chromium, or npx playwright install chromium) or set CHROMIUM_PATH';

/** What the finder reads of the machine; tests pass a made-up one. */
export interface BrowserHost {
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  home: string;
  isExecutable(path: string): boolean;
  /** The names in a directory; none when it does not exist. */
  list(directory: string): string[];
  /** Running as root on Debian with apt-get, where the browser can be installed from Debian's `chromium` package. */
  canInstallDebianPackage(): boolean;
}

export function localBrowserHost(): BrowserHost {
  const host: BrowserHost = {
    env: process.env,
    platform: process.platform,
    home: homedir(),
    isExecutable(path) {
      try {
        accessSync(path, constants.X_OK);
      } catch {
        return false;
      }
      return isFile(path);
    },
    list(directory) {
      try {
        return readdirSync(directory);
      } catch {
        return [];
      }
    },
    canInstallDebianPackage() {
      return process.getuid?.() === 0 && isFile('/etc/debian_version') && findOnPath(host, 'apt-get') !== undefined;
    },
  };
  return host;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function findOnPath(host: BrowserHost, command: string): string | undefined {
  for (const directory of (host.env.PATH ?? '').split(delimiter)) {
    if (directory && host.isExecutable(join(directory, command))) return join(directory, command);
  }
  return undefined;
}

function playwrightCache(host: BrowserHost): string | undefined {
  const configured = host.env.PLAYWRIGHT_BROWSERS_PATH;
  // "0" keeps browsers inside node_modules/playwright-core, which this project does not install into.
  if (configured && configured !== '0') return configured;
  if (host.platform === 'linux') return join(host.env.XDG_CACHE_HOME || join(host.home, '.cache'), 'ms-playwright');
  if (host.platform === 'darwin') return join(host.home, 'Library', 'Caches', 'ms-playwright');
  return undefined;
}

/** A browser Playwright downloaded: full Chromium before the headless shell, the newest revision first. */
function findInPlaywrightCache(host: BrowserHost): string | undefined {
  const cache = playwrightCache(host);
  if (!cache) return undefined;
  const entries = host.list(cache);
  for (const [browser, executables] of Object.entries(PLAYWRIGHT_EXECUTABLES)) {
    const revisions = entries
      .filter((entry) => new RegExp(`^${browser}-\\d+$`).test(entry))
      .sort((a, b) => Number(b.slice(browser.length + 1)) - Number(a.slice(browser.length + 1)));
    for (const revision of revisions) {
      for (const executable of executables) {
        const path = join(cache, revision, executable);
        if (host.isExecutable(path)) return path;
      }
    }
  }
  return undefined;
}

export type BrowserLookup = { found: string } | { missing: string };

/**
 * CHROMIUM_PATH when it is set (and then only it), else the first of chromium, chromium-browser,
 * google-chrome on PATH, else a Chromium in Playwright's browser cache.
 */
export function findChromium(host: BrowserHost = localBrowserHost()): BrowserLookup {
  const configured = host.env.CHROMIUM_PATH;
  if (configured) {
    return host.isExecutable(configured) ? { found: configured } : { missing: `CHROMIUM_PATH=${configured} is not an executable file` };
  }
  for (const command of COMMANDS) {
    const path = findOnPath(host, command);
    if (path) return { found: path };
  }
  const cached = findInPlaywrightCache(host);
  if (cached) return { found: cached };
  return { missing: `no Chromium on PATH (${COMMANDS.join(', ')}) or in Playwright's cache` };
}

export type BrowserPlan =
  | { action: 'run'; executablePath: string }
  | { action: 'install' }
  | { action: 'skip'; message: string }
  | { action: 'fail'; message: string };

function isCi(env: BrowserHost['env']): boolean {
  return Boolean(env.CI) && env.CI !== 'false' && env.CI !== '0';
}

/**
 * What `npm test` does with the browser suites: run them on the Chromium found; install Debian's
 * when none is and the tests run as root on Debian (once, and not when TEST_INSTALL_CHROMIUM=0);
 * under CI fail; otherwise skip them. A CHROMIUM_PATH that names no executable is always a failure:
 * the browser was asked for by name.
 */
export function planBrowserSuites(host: BrowserHost, options: { installed?: boolean } = {}): BrowserPlan {
  const lookup = findChromium(host);
  if ('found' in lookup) return { action: 'run', executablePath: lookup.found };
  if (host.env.CHROMIUM_PATH) return { action: 'fail', message: `${lookup.missing}: ${HOW_TO_GET_CHROMIUM}` };
  const installTried = options.installed !== undefined;
  if (!installTried && host.env.TEST_INSTALL_CHROMIUM !== '0' && host.canInstallDebianPackage()) return { action: 'install' };
  const afterInstall = !installTried ? '' : options.installed ? " after installing Debian's chromium package" : " and installing Debian's chromium package failed";
  const missing = `${lookup.missing}${afterInstall}`;
  if (isCi(host.env)) return { action: 'fail', message: `${missing}; under CI the browser suites must run: ${HOW_TO_GET_CHROMIUM}` };
  return { action: 'skip', message: `${missing}; to run them, ${HOW_TO_GET_CHROMIUM}` };
}

/** apt-get update and install Debian's chromium package; true when both succeeded. */
export function installDebianChromium(): boolean {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-q'], ['install', '-y', '-q', 'chromium']]) {
    if (spawnSync('apt-get', args, { stdio: 'inherit', env }).status !== 0) return false;
  }
  return true;
}

/** Launches the Chromium found, headless with CHROMIUM_ARGS; fails saying how to get one when there is none. */
export async function launchChromium(): Promise<Browser> {
  const lookup = findChromium();
  if ('missing' in lookup) throw new Error(`${lookup.missing}: ${HOW_TO_GET_CHROMIUM}`);
  return chromium.launch({ executablePath: lookup.found, args: CHROMIUM_ARGS });
}
