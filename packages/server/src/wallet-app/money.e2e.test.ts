import assert from 'node:assert/strict';
import { before, after, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { encodeFunctionData, erc20Abi, getAddress, parseEther, parseUnits, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { callFromOperator, deployFromOperator, fixtureContracts, setBalance } from '../a2a/testing/support.ts';
import { buildUser } from '../testing/factories.ts';
import { heading, screen, VIEWPORTS, walletAppSuite, watched } from '../testing/wallet-app-harness.ts';

/**
 * Coins and tokens in the wallet app, in headless Chromium against `wallet-service serve` at a
 * phone's and a desktop's size: balances with the chain's name and ticker, rounded and exact on
 * demand; a token seen in an App2App send_token listed with its balance; coins and a token sent
 * with the fee shown and the balance checked before the PIN (checked on chain); the receive QR's
 * EIP-681 text; the activity's links and its next page. Every screen is scanned with axe-core and
 * saved in test-output/wallet-app/ when WALLET_TEST_SCREENSHOTS=1.
 */
const suite = walletAppSuite();

/** Prepares a request through the SDK bundle on the example BApp's page and answers its universal link. */
async function bappRequestLink(bapp: Page, method: string, params: Record<string, unknown>): Promise<string> {
  return bapp.evaluate(
    async ([name, input]) => {
      const sdk = (window as unknown as { WalletA2A: any }).WalletA2A;
      const client = sdk.createClient({ baseUrl: location.origin });
      const answer = await client.prepare[name]({ bappName: 'Example BApp', ...input });
      return (await client.getRequestUrl(answer.request_key)).url as string;
    },
    [method, params] as const,
  );
}

for (const device of VIEWPORTS) {
  describe(`coins and tokens on a ${device.name} (${device.viewport.width}x${device.viewport.height})`, () => {
    let context: BrowserContext;
    let wallet: Page;
    let bapp: Page;
    let member: Awaited<ReturnType<typeof buildUser>> & { address: Address };
    let token: Address;
    const shot = (name: string) => screen(wallet, device.name, name);
    const services = () => suite.service.services;
    const baseUrl = () => suite.service.baseUrl;
    const chain = () => services().chains.get('main').client;
    const tokenBalance = (holder: Address) => chain().readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
    const stranger = () => privateKeyToAccount(generatePrivateKey()).address;

    before(async () => {
      const built = await buildUser(services());
      member = { ...built, address: getAddress(built.user.main_address) };
      await setBalance(services(), member.address, parseEther('8.499798542034403968'));
      token = await deployFromOperator(services(), fixtureContracts().token, ['Shop Points', 'PTS', 6, parseUnits('1000000', 6)]);
      await callFromOperator(services(), token, encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [member.address, parseUnits('20', 6)] }));
      context = await suite.context(device);
      wallet = await watched(context, `${device.name} wallet`, suite.problems);
      bapp = await watched(context, `${device.name} bapp`, suite.problems);
      await bapp.goto(`${baseUrl()}/examples/bapp/`);
      await wallet.goto(`${baseUrl()}/sign-in`);
      await wallet.getByLabel('E-mail').fill(member.user.email);
      await wallet.getByLabel('Password').fill(member.password);
      await wallet.getByLabel('Password').press('Enter');
      await heading(wallet, 'Your wallet');
    });
    after(() => context?.close());

    test('home: coins per chain with its name and ticker, rounded for people and exact on demand; the non-EVM addresses are labelled receive only', async () => {
      const main = wallet.locator('.balance[data-chain="main"]');
      await main.locator('.coins').filter({ hasText: '8.4998 MAIN' }).waitFor();
      assert.equal(await main.getByRole('heading', { level: 3 }).textContent(), 'Main chain');
      assert.equal(await main.locator('.coins').getAttribute('title'), '8.499798542034403968 MAIN');
      assert.equal(await main.locator('.tokens').count(), 0, 'a token neither listed nor seen in her transfers is not shown');
      assert.match((await wallet.locator('#other-chains-note').textContent())!, /Receive only/);
      await wallet.getByRole('button', { name: 'Show exact amounts' }).click();
      await main.locator('.coins').filter({ hasText: '8.499798542034403968 MAIN' }).waitFor();
      assert.equal(await wallet.getByRole('button', { name: 'Round amounts' }).getAttribute('aria-pressed'), 'true');
      await shot('money-home-exact');
      await wallet.getByRole('button', { name: 'Round amounts' }).click();
    });

    test('a token she sent through an App2App send_token is listed on the home with its balance', async () => {
      await wallet.goto(await bappRequestLink(bapp, 'sendToken', { contract: token, to: stranger(), amount: '1', from: member.address }));
      await heading(wallet, 'Confirm request');
      await wallet.getByLabel('PIN (6 digits)').fill(member.pin);
      await wallet.getByRole('button', { name: 'Approve' }).click();
      await heading(wallet, 'Approved');
      await wallet.goto(`${baseUrl()}/`);
      await wallet.locator(`.balance[data-chain="main"] [data-token="${token.toLowerCase()}"]`).filter({ hasText: '19 PTS' }).waitFor();
      assert.equal(await tokenBalance(member.address), parseUnits('19', 6));
      await shot('money-home');
    });

    test('send coins: too much is refused before the PIN; the fee is shown; a wrong PIN sends nothing; the recipient gets exactly the amount', async () => {
      const recipient = stranger();
      await wallet.getByRole('link', { name: 'Send MAIN' }).click();
      await heading(wallet, 'Send MAIN');
      await wallet.getByLabel('Wallet address', { exact: true }).fill(recipient);
      await wallet.getByLabel('Amount (MAIN)').fill('8.5');
      await wallet.getByRole('button', { name: 'Review' }).click();
      await wallet.getByRole('alert').filter({ hasText: /^There is not enough MAIN for this with its fee\. You have 8\.49\d* MAIN\.$/ }).waitFor();
      assert.equal(await wallet.getByLabel('PIN (6 digits)').count(), 0, 'no PIN before the balance is checked');
      await wallet.getByLabel('Amount (MAIN)').fill('1.5');
      await wallet.getByRole('button', { name: 'Review' }).click();
      const review = wallet.locator('dl[aria-label="What will be sent"]');
      await review.waitFor();
      const details = (await review.textContent())!;
      assert.match(details, /Amount1\.5 MAIN/);
      assert.match(details, new RegExp(`To${recipient}`));
      assert.match(details, /Feeabout 0\.0\d+ MAIN/);
      assert.match(details, /Your coins afterabout 6\.99\d* MAIN/);
      await shot('send-coins-review');
      await wallet.getByLabel('PIN (6 digits)').fill('000000');
      await wallet.getByRole('button', { name: 'Send MAIN' }).click();
      await wallet.getByRole('alert').filter({ hasText: 'The PIN is wrong' }).waitFor();
      assert.equal(await chain().getBalance({ address: recipient }), 0n);
      await wallet.getByLabel('PIN (6 digits)').fill(member.pin);
      await wallet.getByRole('button', { name: 'Send MAIN' }).click();
      await heading(wallet, 'Sent');
      assert.equal(await chain().getBalance({ address: recipient }), parseEther('1.5'));
      await shot('send-coins-sent');
    });

    test('send a token: the token balance checked, the fee in coins; the recipient holds the tokens on chain', async () => {
      const recipient = stranger();
      await wallet.getByRole('link', { name: 'Back to your wallet' }).click();
      await heading(wallet, 'Your wallet');
      await wallet.getByRole('link', { name: 'Send PTS' }).click();
      await heading(wallet, 'Send PTS');
      await wallet.getByLabel('Wallet address', { exact: true }).fill(recipient);
      await wallet.getByLabel('Amount (PTS)').fill('25');
      await wallet.getByRole('button', { name: 'Review' }).click();
      await wallet.getByRole('alert').filter({ hasText: 'There is not enough PTS for this. You have 19 PTS.' }).waitFor();
      await wallet.getByLabel('Amount (PTS)').fill('2.5');
      await wallet.getByRole('button', { name: 'Review' }).click();
      const review = wallet.locator('dl[aria-label="What will be sent"]');
      await review.waitFor();
      assert.match((await review.textContent())!, /Amount2\.5 PTS.*Feeabout [0-9.]+ MAIN.*Your tokens after16\.5 PTS/);
      await shot('send-token-review');
      await wallet.getByLabel('PIN (6 digits)').fill(member.pin);
      await wallet.getByRole('button', { name: 'Send PTS' }).click();
      await heading(wallet, 'Sent');
      assert.equal(await tokenBalance(recipient), parseUnits('2.5', 6));
      assert.equal(await tokenBalance(member.address), parseUnits('16.5', 6));
    });

    test('receive: the QR holds the EIP-681 URI of the address on the chain, shown as text with the address to copy', async () => {
      await wallet.goto(`${baseUrl()}/`);
      await wallet.getByRole('link', { name: 'Receive on Main chain' }).click();
      await heading(wallet, 'Receive on Main chain');
      assert.equal(await wallet.locator('figure.code figcaption').textContent(), `ethereum:${member.address}@31337`);
      await wallet.getByRole('img', { name: /QR code to pay your address on Main chain/ }).waitFor();
      assert.equal(await wallet.locator('.address .mono').textContent(), member.address);
      await shot('receive');
    });

    test('activity: coins, tokens and requests with names and links; older activity a page at a time', async () => {
      // 20 more sends make a second page.
      const cookie = (await context.cookies(baseUrl())).map((entry) => `${entry.name}=${entry.value}`).join('; ');
      const recipient = stranger();
      for (let index = 0; index < 20; index++) {
        const sent = await fetch(`${baseUrl()}/v2/wallet-app/transfers`, {
          method: 'POST',
          headers: { cookie, 'x-wallet-app': '1', 'content-type': 'application/json' },
          body: JSON.stringify({ chain: 'main', amount: '0.01', to_address: recipient, pin: member.pinHash, idempotency_key: `${device.name}-page-${index}` }),
        });
        assert.equal(sent.status, 200, await sent.text());
      }
      await wallet.getByRole('link', { name: 'Activity' }).click();
      await heading(wallet, 'Activity');
      const items = wallet.locator('#activity-items > li');
      await items.first().waitFor();
      assert.equal(await items.count(), 20);
      assert.match((await items.first().textContent())!, /Sent 0\.01 MAINdone.*to 0x/);
      await shot('activity-money');
      await wallet.getByRole('button', { name: 'Show older activity' }).click();
      await wallet.locator('#activity-items > li[data-kind="request"]').waitFor();
      await wallet.getByRole('button', { name: 'Show older activity' }).waitFor({ state: 'detached' });
      const texts = await items.allTextContents();
      assert.equal(texts.length, 23, texts.join('\n'));
      assert.match(texts[20]!, /Sent 2\.5 PTSdone/);
      assert.match(texts[21]!, /Sent 1\.5 MAINdone/);
      const request = wallet.locator('#activity-items > li[data-kind="request"]');
      assert.match((await request.textContent())!, /Example BAppapproved/);
      const link = await request.getByRole('link', { name: 'Example BApp' }).getAttribute('href');
      assert.match(link!, /^\/\?target=%2Fa2a%3Frequest_key%3D[0-9a-f-]{36}$/);
      await shot('activity-older');
    });
  });
}

test('no script error, CSP refusal or failed load on any page', () => {
  suite.assertNoProblems();
});
