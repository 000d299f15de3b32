import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { cardNftAbi } from '@wallet-service/contracts';
import { pino } from 'pino';
import {
  encodeFunctionData,
  formatEther,
  getAddress,
  parseEther,
  recoverAddress,
  verifyMessage,
  verifyTypedData,
  type Abi,
  type Address,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { App } from '../app.ts';
import { callFromOperator, deployFromOperator, fixtureContracts, setBalance } from '../a2a/testing/support.ts';
import { buildMintPayload, mintOk, partnerCall } from '../cards/testing/card-factories.ts';
import { loadConfig } from '../config/config.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { openServices, type Services } from '../services.ts';
import { withBackgroundJobs } from '../background-jobs.ts';
import { launchChromium } from '../testing/browser.ts';
import { buildUser } from '../testing/factories.ts';
import { startService, stopService } from '../testing/service-process.ts';
import { createTestInstallation, type TestInstallation } from '../testing/test-services.ts';
import { databaseUrlWithSchema } from '../testing/test-store.ts';

/**
 * The wallet app in headless Chromium against `wallet-service serve` (a child process, as
 * `npm start` runs it) on its embedded anvil node and store, at a phone's and a desktop's size.
 * Requests come from the example BApp's page (its buttons, or its SDK bundle for the types it has
 * no button for); outcomes are checked on chain and by verifying signatures. Every screen is
 * scanned with axe-core and saved as a screenshot in test-output/wallet-app/.
 */

const VIEWPORTS = [
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  { name: 'desktop', viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false },
] as const;

const SCREENSHOTS = new URL('../../../../test-output/wallet-app/', import.meta.url).pathname;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** The card picture partners' mints name in these tests, answered by the browser itself. */
const CARD_IMAGE = 'https://cdn.example.com/cards/gold.svg';
const CARD_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200" viewBox="0 0 320 200"><rect width="320" height="200" rx="18" fill="#1d4ed8"/><text x="24" y="110" font-family="sans-serif" font-size="34" fill="#fff">Gold Member</text></svg>`;

let installation: TestInstallation;
let service: ChildProcess | undefined;
let baseUrl: string;
let services: Services;
let browser: Browser;
const problems: string[] = [];

/** The Fastify-inject shape the shared test helpers call, carried over HTTP to the service process. */
function overHttp(origin: string): App {
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

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

before(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  installation = await createTestInstallation({ port, publicUrl: baseUrl });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    WALLET_DATA_DIR: installation.dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    WALLET_PUBLIC_URL: baseUrl,
    WALLET_CHAIN_ETHEREUM: 'off',
    WALLET_CHAIN_POLYGON: 'off',
    LOG_LEVEL: 'warn',
  };
  if (installation.postgresSchema) env.DATABASE_URL = databaseUrlWithSchema(installation.config.databaseUrl!, installation.postgresSchema);
  ({ service } = await startService(env));
  // The test's own view of the same installation, attached to the service's node (as the CLI is).
  services = await withBackgroundJobs(await openServices(loadConfig({ env }), {
    chainMode: 'attach',
    log: pino({ level: 'silent' }),
    ...(installation.postgresSchema ? { postgresSchema: installation.postgresSchema } : {}),
  }));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await services?.close();
  await stopService(service);
  await installation?.remove();
});

/** A page whose script errors and console errors (CSP refusals, failed loads) are recorded. */
async function watched(context: BrowserContext, label: string): Promise<Page> {
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
async function assertAccessible(page: Page, screen: string): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> }> } }).axe;
    const report = await axe.run(document);
    return report.violations.map((violation) => ({ id: violation.id, impact: violation.impact, targets: violation.nodes.map((node) => node.target) }));
  });
  const serious = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  assert.deepEqual(serious, [], `${screen}: ${JSON.stringify(serious)}`);
}

async function screen(page: Page, viewport: string, name: string): Promise<void> {
  await assertAccessible(page, `${viewport} ${name}`);
  await page.screenshot({ path: `${SCREENSHOTS}${viewport}-${name}.png`, fullPage: true });
}

async function heading(page: Page, text: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name: text }).waitFor();
}

/** B3 until a transaction's result is final (or the request is not completed). */
async function finalResult(requestKey: string): Promise<Record<string, any>> {
  for (let attempt = 0; attempt < 60; attempt++) {
    const body = (await (await fetch(`${baseUrl}/v2/a2a/result?request_key=${requestKey}&wait=5`)).json()) as Record<string, any>;
    if (body.status !== 'completed' || body.result?.status !== 'pending') return body;
  }
  throw new Error(`request ${requestKey} did not finish`);
}

/** Prepares through the SDK bundle on the example BApp's page; returns the request key. */
async function prepareInBapp(bapp: Page, method: string, params: Record<string, unknown>): Promise<string> {
  const answer = await bapp.evaluate(
    async ([name, input]) => {
      const sdk = (window as unknown as { WalletA2A: any }).WalletA2A;
      const client = sdk.createClient({ baseUrl: location.origin });
      return client.prepare[name]({ bappName: 'Example BApp', successLink: `${location.origin}/examples/bapp/`, failLink: `${location.origin}/examples/bapp/?failed`, ...input });
    },
    [method, params] as const,
  );
  assert.ok(answer.request_key, JSON.stringify(answer));
  return answer.request_key as string;
}

/** The request's universal link, as the SDK gives it to the BApp. */
async function linkOf(bapp: Page, requestKey: string): Promise<string> {
  const links = await bapp.evaluate(async (key) => {
    const sdk = (window as unknown as { WalletA2A: any }).WalletA2A;
    return sdk.createClient({ baseUrl: location.origin }).getRequestUrl(key);
  }, requestKey);
  assert.ok(links.url, JSON.stringify(links));
  return links.url as string;
}

async function approveWithPin(wallet: Page, pin: string): Promise<void> {
  await wallet.getByLabel('PIN (6 digits)').fill(pin);
  await wallet.getByRole('button', { name: 'Approve' }).click();
  await heading(wallet, 'Approved');
}

for (const device of VIEWPORTS) {
  describe(`wallet app on a ${device.name} (${device.viewport.width}x${device.viewport.height})`, () => {
    let context: BrowserContext;
    let wallet: Page;
    let bapp: Page;
    let member: Awaited<ReturnType<typeof buildUser>> & { address: Address };
    const shot = (page: Page, name: string) => screen(page, device.name, name);
    const chain = () => services.chains.get('main').client;

    before(async () => {
      const built = await buildUser(services);
      member = { ...built, address: getAddress(built.user.main_address) };
      await setBalance(services, member.address, parseEther('10'));
      context = await browser.newContext({ viewport: device.viewport, isMobile: device.isMobile, hasTouch: device.hasTouch });
      await context.route(CARD_IMAGE, (route) => route.fulfill({ contentType: 'image/svg+xml', body: CARD_SVG }));
      wallet = await watched(context, `${device.name} wallet`);
      bapp = await watched(context, `${device.name} bapp`);
      await bapp.goto(`${baseUrl}/examples/bapp/`);
    });
    after(() => context?.close());

    test('sign in: a wrong password is told; the right one opens the home screen with the address', async () => {
      await wallet.goto(`${baseUrl}/`);
      await wallet.waitForURL(`${baseUrl}/sign-in`);
      await heading(wallet, 'Sign in');
      await shot(wallet, 'sign-in');
      await wallet.getByLabel('E-mail').fill(member.user.email);
      await wallet.getByLabel('Password').fill('not the password');
      await wallet.getByRole('button', { name: 'Sign in' }).click();
      await wallet.getByRole('alert').filter({ hasText: 'The password is wrong.' }).waitFor();
      await shot(wallet, 'sign-in-error');
      // Keyboard only: the form submits with Enter.
      await wallet.getByLabel('Password').fill(member.password);
      await wallet.getByLabel('Password').press('Enter');
      await heading(wallet, 'Your wallet');
      assert.equal(wallet.url(), `${baseUrl}/`);
      assert.equal(await wallet.locator('.address .mono').textContent(), member.address);
      // The new screen's heading takes the focus, so a screen reader says where the member is.
      await wallet.waitForFunction(() => document.activeElement?.id === 'screen-title');
      await shot(wallet, 'home');
    });

    test('auth from the example BApp’s Connect button: approved with the PIN, the BApp gets the address and the way back', async () => {
      await bapp.click('#connect');
      await bapp.waitForSelector('#wallet-link[href]');
      const link = (await bapp.getAttribute('#wallet-link', 'href'))!;
      const key = (await bapp.textContent('#request-key'))!;
      assert.equal(link, `${baseUrl}/?target=/a2a?request_key=${key}`);
      await wallet.goto(link);
      await heading(wallet, 'Confirm request');
      assert.match((await wallet.locator('main').textContent())!, /Example BApp asks you to connect your wallet/);
      await shot(wallet, 'confirm-auth');
      await approveWithPin(wallet, member.pin);
      await shot(wallet, 'approved-auth');
      assert.equal(await wallet.getAttribute('#return-link', 'href'), `${baseUrl}/examples/bapp/`);
      const outcome = await finalResult(key);
      assert.equal(getAddress(outcome.result.main_address), member.address);
      await bapp.waitForSelector('#connected:not([hidden])');
      assert.equal(getAddress((await bapp.textContent('#address'))!), member.address);
    });

    test('send_coin from the BApp’s form: the amount in coins; the recipient’s balance grows by it', async () => {
      const recipient = privateKeyToAccount(generatePrivateKey()).address;
      await bapp.fill('#send-to', recipient);
      await bapp.fill('#send-amount', '0.25');
      await bapp.click('#send-coin button[type=submit]');
      await bapp.waitForSelector('#wallet-link[href]');
      await wallet.goto((await bapp.getAttribute('#wallet-link', 'href'))!);
      await heading(wallet, 'Confirm request');
      assert.equal(await wallet.locator('.amount').textContent(), '0.25 coin');
      await shot(wallet, 'confirm-send-coin');
      await approveWithPin(wallet, member.pin);
      await bapp.waitForFunction(() => document.getElementById('message')!.textContent === 'Sent.');
      assert.equal(formatEther(await chain().getBalance({ address: recipient })), '0.25');
    });

    test('sign_message from the BApp’s form: the text shown is what is signed, by the member', async () => {
      await bapp.fill('#sign-text', 'Hello from the example BApp');
      await bapp.click('#sign-message button[type=submit]');
      await bapp.waitForSelector('#wallet-link[href]');
      const key = (await bapp.textContent('#request-key'))!;
      await wallet.goto((await bapp.getAttribute('#wallet-link', 'href'))!);
      await heading(wallet, 'Confirm request');
      assert.equal(await wallet.getByLabel('Message', { exact: true }).textContent(), 'Hello from the example BApp');
      await shot(wallet, 'confirm-sign-message');
      await approveWithPin(wallet, member.pin);
      await shot(wallet, 'approved-signature');
      const { result } = await finalResult(key);
      assert.equal(await recoverAddress({ hash: result.hash, signature: result.signature }), member.address);
    });

    test('sign_message_eip191 of hex bytes: shown as text when printable; the signature verifies', async () => {
      const key = await prepareInBapp(bapp, 'signMessageEip191', { value: '0x48656c6c6f2c20776f726c64', isHexEncoded: true, from: member.address });
      await wallet.goto(await linkOf(bapp, key));
      await heading(wallet, 'Confirm request');
      assert.equal(await wallet.getByLabel('Message', { exact: true }).textContent(), 'Hello, world');
      await approveWithPin(wallet, member.pin);
      const { result } = await finalResult(key);
      assert.ok(await verifyMessage({ address: member.address, message: { raw: '0x48656c6c6f2c20776f726c64' }, signature: result.signature }));
    });

    test('sign_typedData_v4: the domain and data as a tree; the signature verifies', async () => {
      const typed = {
        types: {
          EIP712Domain: [
            { name: 'name', type: 'string' },
            { name: 'version', type: 'string' },
            { name: 'chainId', type: 'uint256' },
            { name: 'verifyingContract', type: 'address' },
          ],
          Person: [
            { name: 'name', type: 'string' },
            { name: 'wallet', type: 'address' },
          ],
          Mail: [
            { name: 'from', type: 'Person' },
            { name: 'to', type: 'Person[]' },
            { name: 'contents', type: 'string' },
          ],
        },
        primaryType: 'Mail',
        domain: { name: 'Ether Mail', version: '1', chainId: 1, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' },
        message: {
          from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
          to: [{ name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' }],
          contents: 'Hello, Bob!',
        },
      };
      const key = await prepareInBapp(bapp, 'signTypedData', { value: typed, from: member.address });
      await wallet.goto(await linkOf(bapp, key));
      await heading(wallet, 'Confirm request');
      const details = (await wallet.locator('main').textContent())!;
      for (const text of ['Ether Mail', 'verifyingContract', 'Mail', 'contents', 'Hello, Bob!', 'Cow', 'Bob']) assert.ok(details.includes(text), text);
      await shot(wallet, 'confirm-typed-data');
      await approveWithPin(wallet, member.pin);
      const { result } = await finalResult(key);
      assert.ok(await verifyTypedData({ ...(typed as any), address: member.address, signature: result.signature }));
    });

    test('send_token: whole tokens with the token’s decimals; the recipient’s token balance grows', async () => {
      const { token } = fixtureContracts();
      const contract = await deployFromOperator(services, token, ['Test Token', 'TT', 6, 1_000_000_000n]);
      await callFromOperator(services, contract, encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [member.address, 50_000_000n] }));
      const recipient = privateKeyToAccount(generatePrivateKey()).address;
      const key = await prepareInBapp(bapp, 'sendToken', { contract, to: recipient, amount: '12.5', from: member.address });
      await wallet.goto(await linkOf(bapp, key));
      await heading(wallet, 'Confirm request');
      assert.equal(await wallet.locator('.amount').textContent(), '12.5 tokens');
      assert.match((await wallet.locator('main').textContent())!, /Token decimals6/);
      await shot(wallet, 'confirm-send-token');
      await approveWithPin(wallet, member.pin);
      assert.equal((await finalResult(key)).result.status, 'success');
      const balance = await chain().readContract({ address: contract, abi: token.abi as Abi, functionName: 'balanceOf', args: [recipient] });
      assert.equal(balance, 12_500_000n);
    });

    test('send_card: the card’s picture and number; the card is the recipient’s on chain', async () => {
      const partner = await signedInPartner(overHttp(baseUrl), services);
      const minted = await mintOk(overHttp(baseUrl), partner.token, buildMintPayload(partner, { to_address: [member.address.toLowerCase()], image: CARD_IMAGE, name: 'Gold Member Card' }));
      const cardId = minted.card_ids[0]!;
      const recipient = privateKeyToAccount(generatePrivateKey()).address;
      const key = await prepareInBapp(bapp, 'sendCard', { contract: partner.contractAddress, to: recipient, id: cardId, from: member.address });
      await wallet.goto(await linkOf(bapp, key));
      await heading(wallet, 'Confirm request');
      const picture = wallet.getByRole('img', { name: 'Card: Gold Member Card' });
      await picture.waitFor();
      await wallet.waitForFunction(() => (document.querySelector('.card-picture img') as HTMLImageElement | null)?.naturalWidth === 320);
      await shot(wallet, 'confirm-send-card');
      await approveWithPin(wallet, member.pin);
      assert.equal((await finalResult(key)).result.status, 'success');
      const owner = await chain().readContract({ address: partner.contractAddress as Address, abi: cardNftAbi, functionName: 'ownerOf', args: [BigInt(cardId)] });
      assert.equal(owner, recipient);
    });

    test('execute_contract: the function and each argument decoded with the ABI, coins sent; the contract’s state changes', async () => {
      const { target } = fixtureContracts();
      const contract = await deployFromOperator(services, target);
      const place = (target.abi as unknown as Array<{ name?: string }>).find((item) => item.name === 'place');
      const buyer = privateKeyToAccount(generatePrivateKey()).address;
      const key = await prepareInBapp(bapp, 'executeContract', {
        to: contract,
        abi: place,
        params: [{ buyer, amount: '42', memo: 'two tickets' }, 3],
        from: member.address,
      });
      await wallet.goto(await linkOf(bapp, key));
      await heading(wallet, 'Confirm request');
      const details = (await wallet.locator('main').textContent())!;
      for (const text of ['place', 'order', 'buyer', buyer, 'amount', '42', 'memo', 'two tickets', 'flag', 'uint8']) assert.ok(details.includes(text), text);
      await shot(wallet, 'confirm-execute-contract');
      await approveWithPin(wallet, member.pin);
      assert.equal((await finalResult(key)).result.status, 'success');
      assert.equal(await chain().readContract({ address: contract, abi: target.abi as Abi, functionName: 'total' }), 42n);
    });

    test('cancel: nothing is signed; the BApp reads canceled and is offered its fail link', async () => {
      const key = await prepareInBapp(bapp, 'signMessage', { value: 'Cancel me' });
      await wallet.goto(await linkOf(bapp, key));
      await heading(wallet, 'Confirm request');
      await wallet.getByRole('button', { name: 'Cancel request' }).click();
      await heading(wallet, 'Request canceled');
      await shot(wallet, 'canceled');
      assert.equal(await wallet.getAttribute('#return-link', 'href'), `${baseUrl}/examples/bapp/?failed`);
      assert.equal((await finalResult(key)).status, 'canceled');
      // Opened again, it says it is finished and asks for nothing.
      await wallet.reload();
      await heading(wallet, 'Request finished');
      assert.equal(await wallet.getByLabel('PIN (6 digits)').count(), 0);
    });

    test('a wrong PIN is told and changes nothing; the right one then approves', async () => {
      const key = await prepareInBapp(bapp, 'signMessage', { value: 'PIN check' });
      await wallet.goto(await linkOf(bapp, key));
      await heading(wallet, 'Confirm request');
      await wallet.getByLabel('PIN (6 digits)').fill('000000');
      await wallet.getByRole('button', { name: 'Approve' }).click();
      await wallet.getByRole('alert').filter({ hasText: 'The PIN is wrong' }).waitFor();
      assert.equal(await wallet.evaluate(() => document.activeElement?.id), 'pin', 'the PIN field has the focus again');
      await shot(wallet, 'wrong-pin');
      assert.equal((await finalResult(key)).status, 'requested');
      await approveWithPin(wallet, member.pin);
      assert.equal((await finalResult(key)).status, 'completed');
    });

    test('a request for another member’s address is refused before any PIN is asked', async () => {
      const other = privateKeyToAccount(generatePrivateKey()).address;
      const key = await prepareInBapp(bapp, 'signMessage', { value: 'Not yours', from: other });
      await wallet.goto(await linkOf(bapp, key));
      await heading(wallet, 'Confirm request');
      await wallet.locator('#foreign-from').waitFor();
      assert.match((await wallet.locator('#foreign-from').textContent())!, new RegExp(`for the wallet ${other}, not yours`));
      assert.equal(await wallet.getByLabel('PIN (6 digits)').count(), 0);
      assert.equal(await wallet.getByRole('button', { name: 'Approve' }).count(), 0);
      await shot(wallet, 'foreign-from');
    });

    test('an expired request says so and offers nothing to approve', async () => {
      const key = await prepareInBapp(bapp, 'signMessage', { value: 'Too late' });
      await services.store.db.updateTable('a2a_requests').set({ expiration_time: Math.floor(Date.now() / 1000) - 1 }).where('request_key', '=', key).execute();
      await wallet.goto(`${baseUrl}/?target=/a2a?request_key=${key}`);
      await heading(wallet, 'Request expired');
      assert.match((await wallet.getByRole('alert').textContent())!, /expired/);
      assert.equal(await wallet.getByLabel('PIN (6 digits)').count(), 0);
      await shot(wallet, 'expired');
      const answer = (await (await fetch(`${baseUrl}/v2/a2a/result?request_key=${key}`)).json()) as { error: { code: number } };
      assert.equal(answer.error.code, 6001);
    });

    test('claim link: the card and its sender; claiming makes the member its owner on chain', async () => {
      const http = overHttp(baseUrl);
      const partner = await signedInPartner(http, services);
      const own = partner.partner.main_address;
      const minted = await mintOk(http, partner.token, buildMintPayload(partner, { to_address: [own], name: 'Concert Ticket', image: CARD_IMAGE }));
      const body = { pin: partner.pinHash, contract_address: partner.contractAddress };
      assert.equal((await partnerCall(http, partner.token, 'POST', '/v2/escrow/approve', body)).statusCode, 200);
      const deposit = await partnerCall(http, partner.token, 'POST', '/v2/escrow', { ...body, card_ids: minted.card_ids });
      assert.equal(deposit.statusCode, 200, deposit.body);
      const link = deposit.json().claim_links[0] as string;
      assert.ok(link.startsWith(`${baseUrl}/claim/`), link);

      await wallet.goto(link);
      await heading(wallet, 'A card for you');
      await wallet.getByRole('button', { name: 'Claim the card' }).waitFor();
      assert.match((await wallet.locator('main').textContent())!, /sent you the card Concert Ticket/);
      await shot(wallet, 'claim');
      await wallet.getByRole('button', { name: 'Claim the card' }).click();
      await heading(wallet, 'The card is yours');
      await shot(wallet, 'claimed');
      const owner = await chain().readContract({
        address: partner.contractAddress as Address,
        abi: cardNftAbi,
        functionName: 'ownerOf',
        args: [BigInt(minted.card_ids[0]!)],
      });
      assert.equal(owner, member.address);
    });

    test('sign out: back to sign-in, and the session no longer works', async () => {
      await wallet.goto(`${baseUrl}/`);
      await heading(wallet, 'Your wallet');
      const token = await wallet.evaluate(() => sessionStorage.getItem('wallet-session'));
      await wallet.getByRole('button', { name: 'Sign out' }).click();
      await heading(wallet, 'Sign in');
      const me = await fetch(`${baseUrl}/v2/wallet-app/me`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(((await me.json()) as { code: number }).code, 402);
    });
  });
}

test('no script error, CSP refusal or failed load on any page', () => {
  assert.deepEqual(problems, []);
});
