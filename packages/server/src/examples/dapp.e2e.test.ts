import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { BrowserProvider, parseEther as ethersParseEther } from 'ethers';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { formatEther, getAddress, parseEther, verifyMessage, verifyTypedData, type Abi, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createProvider, type PendingRequest } from '@wallet-service/sdk/provider';
import { memoryStorage } from '@wallet-service/sdk';
import { deployFromOperator, fixtureContracts, setBalance } from '../a2a/testing/support.ts';
import type { Services } from '../services.ts';
import { launchChromium } from '../testing/browser.ts';
import { buildUser } from '../testing/factories.ts';
import { heading, startWalletAppService, watched, type WalletAppService } from '../testing/wallet-app-harness.ts';
import { mailTypedData } from '../../../../examples/dapp/src/mail.ts';
import { EXAMPLE_DAPP_DIST } from './routes.ts';

/**
 * The example dapp (examples/dapp: React, wagmi, viem; it knows only the SDK's wagmi connector) in
 * headless Chromium against `wallet-service serve` as `npm start` runs it, on its embedded anvil
 * node. Every request it makes is approved by the member in the wallet app, in a second page, with
 * the PIN; outcomes are checked on chain and by verifying the signatures. ethers v6 in Node.js
 * sends a transaction over the same provider.
 */
describe('example dapp (wagmi over App2App) in headless Chromium', () => {
  let service: WalletAppService;
  let baseUrl: string;
  let services: Services;
  let browser: Browser;
  let context: BrowserContext;
  let dapp: Page;
  let wallet: Page;
  let member: Awaited<ReturnType<typeof buildUser>> & { address: Address };
  const problems: string[] = [];
  const chain = () => services.chains.get('main').client;

  before(async () => {
    assert.ok(existsSync(new URL('index.html', EXAMPLE_DAPP_DIST)), 'the example dapp is built: run npm install');
    service = await startWalletAppService();
    ({ baseUrl, services } = service);
    browser = await launchChromium();
    const built = await buildUser(services);
    member = { ...built, address: getAddress(built.user.main_address) };
    await setBalance(services, member.address, parseEther('10'));
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    wallet = await watched(context, 'wallet', problems);
    dapp = await watched(context, 'dapp', problems);
    await wallet.goto(`${baseUrl}/sign-in`);
    await wallet.getByLabel('E-mail').fill(member.user.email);
    await wallet.getByLabel('Password').fill(member.password);
    await wallet.getByRole('button', { name: 'Sign in' }).click();
    await heading(wallet, 'Your wallet');
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  /** The wallet link of the request the dapp's dialog shows. */
  async function dialogLink(): Promise<string> {
    const link = dapp.locator('dialog.wallet-a2a-dialog[open] a.wallet-a2a-link');
    await link.waitFor();
    return (await link.getAttribute('href'))!;
  }

  /**
   * The member opens the request in the wallet app and approves it with the PIN; `warned`: a call to a
   * contract she never used, which she acknowledges first (the wallet asks no PIN before).
   */
  async function approveInWallet(link: string, warned = false): Promise<void> {
    await wallet.goto(link);
    await heading(wallet, 'Confirm request');
    if (warned) {
      await wallet.locator('#warnings').filter({ hasText: 'A contract you have never used' }).waitFor();
      await wallet.getByLabel('I read the warning above and I still want to approve this request').check();
    }
    await wallet.getByLabel('PIN (6 digits)').fill(member.pin);
    await wallet.getByRole('button', { name: 'Approve' }).click();
    await heading(wallet, 'Approved');
  }

  async function text(selector: string): Promise<string> {
    return ((await dapp.locator(selector).textContent()) ?? '').trim();
  }

  test('the service serves the built page and its assets, with the CSP; nothing outside the build', async () => {
    const page = await fetch(`${baseUrl}/examples/dapp/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy')!, /script-src 'self'/);
    const html = await page.text();
    const script = /src="(\/examples\/dapp\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, html);
    const asset = await fetch(`${baseUrl}${script}`);
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('content-type')!, /^text\/javascript/);
    for (const path of ['/examples/dapp/assets/..%2F..%2Fpackage.json', '/examples/dapp/assets/..%2Findex.html', '/examples/dapp/assets/missing.js', '/examples/dapp/assets/index.html']) {
      assert.equal((await fetch(`${baseUrl}${path}`)).status, 404, path);
    }
    assert.equal((await fetch(`${baseUrl}/examples/dapp`, { redirect: 'manual' })).headers.get('location'), '/examples/dapp/');
  });

  test('connect: useConnect asks the wallet (a QR dialog on a computer); after approval the page has the member’s address', async () => {
    await dapp.goto(`${baseUrl}/examples/dapp/`);
    await dapp.locator('#connect-walletService').click();
    const link = await dialogLink();
    assert.match(link, new RegExp(`^${baseUrl}/\\?target=/a2a\\?request_key=`));
    const qr = dapp.locator('dialog.wallet-a2a-dialog[open] img.wallet-a2a-qr');
    await dapp.waitForFunction(() => (document.querySelector('img.wallet-a2a-qr') as HTMLImageElement | null)?.naturalWidth! > 0);
    assert.match((await qr.getAttribute('src'))!, /\/v2\/a2a\/qr\?request_key=.*&format=png$/);
    await approveInWallet(link);
    await dapp.locator('#account').waitFor();
    assert.equal(await text('#account'), member.address);
    assert.equal(await dapp.locator('dialog.wallet-a2a-dialog').count(), 0, 'the dialog is gone');
    assert.equal(await text('#status'), 'connected');

    await dapp.reload();
    await dapp.locator('#account').waitFor();
    assert.equal(await text('#account'), member.address, 'wagmi reconnects without asking again');
  });

  test('useSendTransaction: coins reach the recipient; the receipt is read through the service’s RPC endpoint', async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    await dapp.fill('#send-to', recipient);
    await dapp.fill('#send-amount', '0.25');
    await dapp.click('#send button[type=submit]');
    await approveInWallet(await dialogLink());
    await dapp.waitForFunction(() => document.querySelector('#send-receipt .status')?.textContent === 'success');
    const hash = (await text('#send-receipt .hash')) as Hex;
    const receipt = await chain().getTransactionReceipt({ hash });
    assert.equal(getAddress(receipt.from), member.address);
    assert.equal(formatEther(await chain().getBalance({ address: recipient })), '0.25');
  });

  test('useWriteContract: the contract’s state changes; useReadContract shows it', async () => {
    const { target } = fixtureContracts();
    const address = await deployFromOperator(services, target);
    await dapp.fill('#contract-address', address);
    await dapp.waitForFunction(() => document.getElementById('contract-total')?.textContent === '0');
    await dapp.fill('#contract-x', '42');
    await dapp.click('#write button[type=submit]');
    await approveInWallet(await dialogLink(), true);
    await dapp.waitForFunction(() => document.querySelector('#write-receipt .status')?.textContent === 'success');
    await dapp.waitForFunction(() => document.getElementById('contract-total')?.textContent === '42');
    assert.equal(await chain().readContract({ address, abi: target.abi as Abi, functionName: 'total' }), 42n);
  });

  test('useSignMessage: the signature verifies for the member’s address (viem verifyMessage)', async () => {
    await dapp.fill('#sign-text', 'Sign in to Example dapp, nonce 7');
    await dapp.click('#sign button[type=submit]');
    await approveInWallet(await dialogLink());
    await dapp.locator('#sign-signature').waitFor();
    const signature = (await text('#sign-signature')) as Hex;
    assert.equal(await verifyMessage({ address: member.address, message: 'Sign in to Example dapp, nonce 7', signature }), true);
    assert.equal(await verifyMessage({ address: member.address, message: 'another message', signature }), false);
  });

  test('useSignTypedData: the EIP-712 signature verifies (viem verifyTypedData)', async () => {
    await dapp.click('#typed button[type=submit]');
    await approveInWallet(await dialogLink());
    await dapp.locator('#typed-signature').waitFor();
    const signature = (await text('#typed-signature')) as Hex;
    // Exactly what the page signs.
    const valid = await verifyTypedData({ ...mailTypedData(services.chains.get('main').chainId, member.address), address: member.address, signature });
    assert.equal(valid, true);
  });

  test('a cancel rejects with 4001: Cancel in the dapp’s dialog, and Cancel request in the wallet', async () => {
    await dapp.fill('#sign-text', 'never signed');
    await dapp.click('#sign button[type=submit]');
    await dialogLink();
    await dapp.locator('dialog.wallet-a2a-dialog[open] .wallet-a2a-cancel').click();
    await dapp.locator('#sign-error').waitFor();
    assert.match(await text('#sign-error'), /^Error 4001: /);
    assert.equal(await dapp.locator('dialog.wallet-a2a-dialog').count(), 0);

    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    await dapp.fill('#send-to', recipient);
    await dapp.fill('#send-amount', '1');
    await dapp.click('#send button[type=submit]');
    await wallet.goto(await dialogLink());
    await heading(wallet, 'Confirm request');
    await wallet.getByRole('button', { name: 'Cancel request' }).click();
    await dapp.locator('#send-error').waitFor();
    assert.match(await text('#send-error'), /^Error 4001: /);
    assert.equal(await chain().getBalance({ address: recipient }), 0n, 'nothing was sent');
  });

  test('ethers v6 BrowserProvider over the same provider (in Node.js) sends a transaction', async () => {
    const shown: PendingRequest[] = [];
    const provider = createProvider({ bappName: 'ethers script', baseUrl, storage: memoryStorage(), environment: 'other', showRequest: (request) => void shown.push(request) });
    const approveNext = async () => {
      const count = shown.length;
      while (shown.length === count) await new Promise((resolve) => setTimeout(resolve, 50));
      await approveInWallet(shown.at(-1)!.links.url);
    };
    const ethers = new BrowserProvider(provider);
    const [signer] = await Promise.all([ethers.getSigner(), approveNext()]);
    assert.equal(await signer.getAddress(), member.address);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const [sent] = await Promise.all([signer.sendTransaction({ to: recipient, value: ethersParseEther('0.125') }), approveNext()]);
    const receipt = await sent.wait();
    assert.equal(receipt?.status, 1);
    assert.equal(formatEther(await chain().getBalance({ address: recipient })), '0.125');
    assert.equal((await ethers.getNetwork()).chainId, BigInt(services.chains.get('main').chainId));
  });

  test('disconnect forgets the address at once', async () => {
    await dapp.click('#disconnect');
    await dapp.locator('#connect-walletService').waitFor();
    assert.equal(await dapp.evaluate(() => localStorage.getItem('wallet-a2a.connection')), null);
    await dapp.reload();
    await dapp.locator('#connect-walletService').waitFor();
  });

  test('no script error, CSP refusal or failed load on any page', () => {
    assert.deepEqual(problems, []);
  });
});
