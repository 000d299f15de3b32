import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { formatEther, recoverAddress, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { approveAs, mintCards, openAs, signedInMember } from '../a2a/testing/support.ts';
import { launchChromium } from '../testing/browser.ts';
import { openTestApp, type TestApp } from '../testing/test-services.ts';
import { EXAMPLE_BAPP_FILES } from './routes.ts';

/** The wallet's web host in this test: universal links point here and the browser is answered locally. */
const WALLET_WEB = 'http://wallet.example';
const STORAGE_KEY = 'wallet-a2a.connection';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

/**
 * The example BApp in headless Chromium against the real service: the page's buttons prepare
 * requests through the SDK's browser bundle, the member approves them through the wallet-app API,
 * and the page shows what came back.
 */
describe('example BApp in headless Chromium', () => {
  let testApp: TestApp;
  let baseUrl: string;
  let browser: Browser;
  let desktop: BrowserContext;
  let page: Page;
  let member: Awaited<ReturnType<typeof signedInMember>>;
  const problems: string[] = [];
  const prepares: string[] = [];

  before(async () => {
    testApp = await openTestApp({ a2a: { links: { webUrl: WALLET_WEB } } });
    baseUrl = await testApp.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    desktop = await browser.newContext();
    page = await watched(desktop);
    member = await signedInMember(testApp.app, testApp.services, { coins: '5' });
  });
  after(async () => {
    await browser?.close();
    await testApp?.cleanup();
  });

  /** A page whose script errors, console errors (CSP refusals, failed loads) and prepare calls are recorded. */
  async function watched(context: BrowserContext): Promise<Page> {
    const opened = await context.newPage();
    opened.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    opened.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    opened.on('request', (request) => {
      if (request.url().endsWith('/v2/a2a/prepare')) prepares.push(request.postData() ?? '');
    });
    return opened;
  }

  /** Runs `action` and returns the request key the page's prepare call received. */
  async function preparedBy(on: Page, action: () => Promise<unknown>): Promise<string> {
    // Read through a route, not from the response: on a phone the page navigates away at once,
    // after which the browser no longer has the response body.
    let answered: (body: { request_key?: string }) => void;
    const prepared = new Promise<{ request_key?: string }>((resolve) => (answered = resolve));
    const pattern = '**/v2/a2a/prepare';
    await on.route(pattern, async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { request_key?: string };
      await route.fulfill({ response });
      answered(body);
    });
    try {
      const [body] = await Promise.all([prepared, action()]);
      assert.ok(body.request_key, JSON.stringify(body));
      return body.request_key;
    } finally {
      await on.unroute(pattern);
    }
  }

  async function textOf(selector: string): Promise<string> {
    return (await page.locator(selector).textContent()) ?? '';
  }

  async function approve(requestKey: string) {
    const approved = await approveAs(testApp.app, member.token, requestKey, member.pin);
    assert.equal(approved.statusCode, 200, approved.body);
  }

  const stored = (on: Page) => on.evaluate((key) => localStorage.getItem(key), STORAGE_KEY);

  test('the service serves the page, its files and the SDK bundle', async () => {
    const redirect = await testApp.app.inject({ method: 'GET', url: '/examples/bapp' });
    assert.equal(redirect.statusCode, 302);
    assert.equal(redirect.headers.location, '/examples/bapp/');
    const html = await testApp.app.inject({ method: 'GET', url: '/examples/bapp/' });
    assert.equal(html.statusCode, 200);
    assert.match(String(html.headers['content-type']), /^text\/html/);
    assert.match(String(html.headers['content-security-policy']), /script-src 'self'/);
    assert.match(html.body, /<script src="wallet-a2a.js"><\/script>/);
    const bundle = await testApp.app.inject({ method: 'GET', url: '/examples/bapp/wallet-a2a.js' });
    assert.equal(bundle.statusCode, 200);
    assert.match(String(bundle.headers['content-type']), /^text\/javascript/);
    assert.equal(bundle.body, readFileSync(EXAMPLE_BAPP_FILES['wallet-a2a.js']!.url, 'utf8'));
    assert.match(bundle.body, /var WalletA2A=/);
    assert.equal((await testApp.app.inject({ method: 'GET', url: '/examples/bapp/../package.json' })).statusCode, 404);
    assert.equal((await testApp.app.inject({ method: 'GET', url: '/examples/bapp/routes.ts' })).statusCode, 404);
  });

  test('connect: the page prepares auth and shows a QR code; after approval it shows and stores the address', async () => {
    await page.goto(`${baseUrl}/examples/bapp/`);
    assert.equal(await page.locator('#connect').isVisible(), true);
    const key = await preparedBy(page, () => page.click('#connect'));
    assert.deepEqual(JSON.parse(prepares.at(-1)!), {
      type: 'auth',
      bapp: { name: 'Example BApp', callback: { success: `${baseUrl}/examples/bapp/`, fail: `${baseUrl}/examples/bapp/` } },
    });

    await page.waitForFunction(() => (document.getElementById('qr') as HTMLImageElement).naturalWidth > 0);
    assert.equal(await page.getAttribute('#qr', 'src'), `${baseUrl}/v2/a2a/qr?request_key=${key}&format=png`);
    assert.equal(await page.getAttribute('#wallet-link', 'href'), `${WALLET_WEB}/?target=/a2a?request_key=${key}`);
    assert.equal(await textOf('#request-key'), key);
    assert.equal(await page.isDisabled('#connect'), true, 'no second request while one waits');

    assert.equal((await openAs(testApp.app, member.token, key)).statusCode, 200);
    await page.waitForFunction(() => /opened the request/.test(document.getElementById('pending-state')!.textContent ?? ''));
    await approve(key);
    await page.waitForSelector('#connected:not([hidden])');
    assert.equal(await textOf('#address'), member.address);
    assert.equal(await page.locator('#pending').isVisible(), false);
    assert.equal(JSON.parse((await stored(page))!).main_address, member.address);

    await page.reload();
    await page.waitForSelector('#connected:not([hidden])');
    assert.equal(await textOf('#address'), member.address, 'the connection survives a reload');
  });

  test('sign a message: the signature shown is the member’s', async () => {
    await page.fill('#sign-text', 'Example BApp says hello');
    const key = await preparedBy(page, () => page.click('#sign-message button[type=submit]'));
    assert.deepEqual(JSON.parse(prepares.at(-1)!).message, { value: 'Example BApp says hello', from: member.address });
    await approve(key);
    await page.waitForFunction(() => document.getElementById('message')!.textContent === 'Signed.');
    const cells = await page.locator('#outcome-details td').allTextContents();
    assert.equal(cells[0], 'signature');
    assert.equal(cells[2], 'hash');
    const signer = await recoverAddress({ hash: cells[3] as Hex, signature: cells[1] as Hex });
    assert.equal(signer.toLowerCase(), member.address.toLowerCase());
  });

  test('send coin: too many decimals are refused in the page; a real send is mined', async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const before = prepares.length;
    await page.fill('#send-to', recipient);
    await page.fill('#send-amount', '0.1234567');
    await page.click('#send-coin button[type=submit]');
    await page.waitForFunction(() => /^Error 4072/.test(document.getElementById('message')!.textContent ?? ''));
    assert.equal(prepares.length, before, 'no prepare was sent');

    await page.fill('#send-amount', '0.5');
    const key = await preparedBy(page, () => page.click('#send-coin button[type=submit]'));
    await approve(key);
    await page.waitForFunction(() => document.getElementById('message')!.textContent === 'Sent.');
    const cells = await page.locator('#outcome-details td').allTextContents();
    assert.deepEqual([cells[0], cells[2], cells[3]], ['transaction', 'status', 'success']);
    const balance = await testApp.services.chains.get('main').client.getBalance({ address: recipient });
    assert.equal(formatEther(balance), '0.5');
  });

  test('my cards: the page lists the cards the member holds', async () => {
    const other = privateKeyToAccount(generatePrivateKey()).address as Address;
    const minted = await mintCards(testApp.services, [member.address, other, member.address]);
    await page.fill('#cards-contract', minted.contractAddress);
    await page.click('#cards button[type=submit]');
    await page.waitForSelector('#cards-table:not([hidden])');
    assert.deepEqual(await page.locator('#cards-list tr td:first-child').allTextContents(), ['#1', '#3']);
    assert.match(await textOf('#cards-title'), /: 2 in all$/);
  });

  test('disconnect: the address leaves the page and localStorage at once', async () => {
    assert.ok(await stored(page));
    await page.click('#disconnect');
    assert.equal(await stored(page), null);
    assert.equal(await page.locator('#connect').isVisible(), true);
    assert.equal(await page.locator('#connected').isVisible(), false);
    await page.reload();
    assert.equal(await page.locator('#connect').isVisible(), true, 'still disconnected after a reload');
  });

  test('on a phone: connect opens the universal link, and the page picks the request up on return', async () => {
    const phone = await browser.newContext({ userAgent: IPHONE, isMobile: true, hasTouch: true, viewport: { width: 390, height: 844 } });
    try {
      await phone.route((url) => url.origin === WALLET_WEB, (route) => route.fulfill({ contentType: 'text/html', body: '<p>wallet</p>' }));
      const mobile = await watched(phone);
      await mobile.goto(`${baseUrl}/examples/bapp/`);
      const key = await preparedBy(mobile, () => mobile.click('#connect'));
      await mobile.waitForURL((url) => url.origin === WALLET_WEB);
      assert.equal(mobile.url(), `${WALLET_WEB}/?target=/a2a?request_key=${key}`);

      await approve(key);
      await mobile.goto(`${baseUrl}/examples/bapp/`);
      await mobile.waitForSelector('#connected:not([hidden])');
      assert.equal(await mobile.locator('#address').textContent(), member.address);
      assert.equal(JSON.parse((await stored(mobile))!).main_address, member.address);
    } finally {
      await phone.close();
    }
  });

  test('no script error, CSP refusal or failed load on any page', () => {
    assert.deepEqual(problems, []);
  });
});
