import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import lighthouse from 'lighthouse';
import { chromium } from 'playwright-core';
import { encodeFunctionData, getAddress, parseEther, type Address } from 'viem';
import { cardNftAbi } from '@wallet-service/contracts';
import { prepareKey, setBalance } from '../../a2a/testing/support.ts';
import { buildMintPayload, mintOk } from '../../cards/testing/card-factories.ts';
import { signedInPartner } from '../../partner-api/testing/partner-session.ts';
import { buildPng } from '../../uploads/testing/media.ts';
import { uploadBody } from '../../uploads/testing/multipart.ts';
import { CHROMIUM_ARGS, findChromium, HOW_TO_GET_CHROMIUM } from '../browser.ts';
import { buildUser } from '../factories.ts';
import { overHttp, startWalletAppService } from '../wallet-app-harness.ts';

/**
 * `npm run lighthouse`: Lighthouse's mobile profile (simulated slow 4G, a mid-range phone's CPU) on
 * every screen of the wallet app, served by `wallet-service serve` on its embedded node and store
 * (the browser suites' harness), in the Chromium the browser tests use (CHROMIUM_PATH, else one on
 * PATH or in Playwright's cache). A member with a card, its secure codes and a pending request is
 * made first; the signed-out screens are scored before signing in. Prints a table and exits 1 when
 * a screen's median of RUNS scores under TARGET in performance, accessibility or best practices.
 * Too slow for `npm test` (about 15 s a run on two cores: some 8 minutes for 11 screens).
 */

const TARGET = 95;
/** Runs per screen (LIGHTHOUSE_RUNS, default 3): the median is scored, as Lighthouse advises, since a busy machine's CPU moves the blocking time. */
const RUNS = Math.max(1, Number(process.env.LIGHTHOUSE_RUNS ?? 3));
const CATEGORIES = ['performance', 'accessibility', 'best-practices'] as const;
const REPORTS = new URL('../../../../../test-output/lighthouse/', import.meta.url).pathname;

interface Scored {
  screen: string;
  path: string;
  scores: Record<(typeof CATEGORIES)[number], number>;
  failing: string[];
}

async function main(): Promise<number> {
  const lookup = findChromium();
  if ('missing' in lookup) throw new Error(`${lookup.missing}: ${HOW_TO_GET_CHROMIUM}`);
  mkdirSync(REPORTS, { recursive: true });
  const service = await startWalletAppService();
  const profile = mkdtempSync(join(tmpdir(), 'wallet-lighthouse-'));
  let browserProcess: ChildProcess | undefined;
  try {
    const { baseUrl, services } = service;
    const http = overHttp(baseUrl);
    const built = await buildUser(services);
    const member = { ...built, address: getAddress(built.user.main_address) };
    await setBalance(services, member.address, parseEther('10'));
    const partner = await signedInPartner(http, services);
    // The card's picture is stored by the service itself: the audit runs without a network.
    const upload = uploadBody(buildPng({ width: 960, height: 600 }), 'card.png', 'image/png');
    const stored = await fetch(`${baseUrl}/v2/wallet/nftResource`, { method: 'POST', headers: { authorization: partner.token, ...upload.headers }, body: new Uint8Array(upload.payload) });
    const image = ((await stored.json()) as { url: string }).url;
    const design = { image, animation_url: undefined, qr_code: undefined, bar_code: undefined, external_link: undefined, custom_links: undefined };
    const [cardId] = (
      await mintOk(http, partner.token, buildMintPayload(partner, { ...design, name: 'Gold Member Card', to_address: [member.address.toLowerCase()], secure: { qr_code: 'ENTRY-7731-GOLD', bar_code: 'GM-7731' } }))
    ).card_ids;
    const requestKey = await prepareKey(http, {
      bapp: { name: 'Example BApp' },
      type: 'execute_contract',
      transaction: { to: partner.contractAddress, from: member.address, encoded_function_call: encodeFunctionData({ abi: cardNftAbi, functionName: 'setApprovalForAll', args: [partner.contractAddress as Address, true] }) },
    });

    const { port, child } = await startChromium(lookup.found, profile);
    browserProcess = child;
    const signedOut: Array<[string, string]> = [
      ['Sign in', '/sign-in'],
      ['Create a wallet', '/sign-up'],
    ];
    const signedIn: Array<[string, string]> = [
      ['Home', '/'],
      ['Receive', '/receive'],
      ['Send coins', '/send'],
      ['Cards', '/cards'],
      ['Card', `/cards/${partner.nftId}/${cardId}`],
      ['Send a card', `/cards/${partner.nftId}/${cardId}/send`],
      ['Activity', '/activity'],
      ['Account', '/account'],
      ['Confirm request', `/?target=${encodeURIComponent(`/a2a?request_key=${requestKey}`)}`],
    ];
    // The app's own 404 page is answered 404, which Lighthouse refuses to score (ERRORED_DOCUMENT_REQUEST).
    const results: Scored[] = [];
    for (const [screen, path] of signedOut) results.push(await audit(port, screen, `${baseUrl}${path}`));
    await signIn(port, baseUrl, member.user.email, member.password);
    for (const [screen, path] of signedIn) results.push(await audit(port, screen, `${baseUrl}${path}`));

    printTable(results);
    const under = results.filter((result) => CATEGORIES.some((category) => result.scores[category] < TARGET));
    for (const result of under) console.log(`${result.screen}: under ${TARGET}; failing audits: ${result.failing.join(', ') || 'none listed'}`);
    console.log(`Reports: ${REPORTS}`);
    return under.length === 0 ? 0 : 1;
  } finally {
    browserProcess?.kill('SIGTERM');
    await service.stop();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Chromium headless with a DevTools port, which Lighthouse drives; resolves once the port is printed. */
function startChromium(executable: string, profile: string): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(executable, [...CHROMIUM_ARGS, '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(output);
      if (listening) resolve({ port: Number(listening[1]), child });
    });
    child.once('exit', (code) => reject(new Error(`Chromium exited (${code}) before listening:\n${output}`)));
  });
}

/** Signs the member in through the sign-in screen: the session cookie stays in the browser for the audits after. */
async function signIn(port: number, baseUrl: string, email: string, password: string): Promise<void> {
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  const page = await browser.contexts()[0]!.newPage();
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Your wallet' }).waitFor();
  await page.close();
}

async function audit(port: number, screen: string, url: string): Promise<Scored> {
  const runs: Scored[] = [];
  for (let run = 0; run < RUNS; run++) runs.push(await auditOnce(port, screen, url, run === 0));
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const scores = Object.fromEntries(CATEGORIES.map((category) => [category, median(runs.map((run) => run.scores[category]))])) as Scored['scores'];
  const failing = [...new Set(runs.flatMap((run) => run.failing))];
  console.log(`${screen}: ${CATEGORIES.map((category) => `${category} ${scores[category]} (${runs.map((run) => run.scores[category]).join(', ')})`).join('; ')}`);
  return { screen, path: new URL(url).pathname, scores, failing };
}

async function auditOnce(port: number, screen: string, url: string, keepReport: boolean): Promise<Scored> {
  // Storage is kept: a reset would drop the session cookie (and audit the sign-in screen again).
  const answer = await lighthouse(url, { port, output: 'html', logLevel: 'error', onlyCategories: [...CATEGORIES], disableStorageReset: true });
  if (!answer) throw new Error(`Lighthouse gave no result for ${url}`);
  const { lhr } = answer;
  if (lhr.runtimeError) throw new Error(`${screen}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
  if (keepReport) writeFileSync(join(REPORTS, `${screen.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.html`), answer.report as string);
  const scores = Object.fromEntries(CATEGORIES.map((category) => [category, Math.round((lhr.categories[category]?.score ?? 0) * 100)])) as Scored['scores'];
  const failing = CATEGORIES.flatMap((category) =>
    (lhr.categories[category]?.auditRefs ?? [])
      .filter((ref) => ref.weight > 0 && lhr.audits[ref.id]?.score !== null && (lhr.audits[ref.id]?.score ?? 1) < 0.9)
      .map((ref) => ref.id),
  );
  return { screen, path: new URL(url).pathname, scores, failing };
}

function printTable(results: Scored[]): void {
  const rows = [['Screen', 'Performance', 'Accessibility', 'Best practices'], ...results.map((result) => [result.screen, ...CATEGORIES.map((category) => String(result.scores[category]))])];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const [index, row] of rows.entries()) {
    console.log(`| ${row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join(' | ')} |`);
    if (index === 0) console.log(`|${widths.map((width, column) => (column === 0 ? '-'.repeat(width + 2) : `${'-'.repeat(width + 1)}:`)).join('|')}|`);
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(2);
  },
);
