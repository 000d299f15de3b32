import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { cardNftAbi } from '@wallet-service/contracts';
import { encodeFunctionData, getAddress, maxUint256, parseAbi, parseEther, verifyTypedData, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { callFromOperator, deployFromOperator, finalResult, fixtureContracts, prepareKey, setBalance } from '../a2a/testing/support.ts';
import { buildMintPayload, mintOk } from '../cards/testing/card-factories.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { buildUser } from '../testing/factories.ts';
import { heading, overHttp, screen, VIEWPORTS, walletAppSuite, watched } from '../testing/wallet-app-harness.ts';
import { permit2TypedData, permitTypedData } from './testing/permits.ts';

/**
 * Safe confirmations and many cards in headless Chromium against `wallet-service serve`, at a
 * phone's and a desktop's size: each warning the service finds (setApprovalForAll, an unlimited
 * approve, a transferFrom of her own card, EIP-2612 and Permit2 signatures, a contract never used)
 * is shown with its reason, the PIN is not asked until the member acknowledges it, and approving
 * does on chain what was shown; the service's card contract is named by its partner. Then 60 cards
 * in two collections searched, sorted and folded, and a card's codes shown at the counter with
 * the screen kept on (a stubbed Wake Lock on the phone, none on the desktop).
 */

const CARD_IMAGE = 'https://cdn.example.com/cards/safe.svg';
const CARD_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200" viewBox="0 0 320 200"><rect width="320" height="200" rx="18" fill="#7c2d12"/><text x="24" y="110" font-family="sans-serif" font-size="34" fill="#fff">Card</text></svg>`;
const BAPP = { name: 'Example BApp' };
const erc20 = parseAbi(['function allowance(address owner, address spender) view returns (uint256)', 'function approve(address spender, uint256 amount)']);

const suite = walletAppSuite();

/**
 * A Wake Lock that answers at once and counts its requests and releases (the headless browser's own
 * refuses), or none at all. Sources, not functions: the test runner's transform would add helpers
 * the page does not have.
 */
const STUB_WAKE_LOCK = `
  const state = { requested: 0, released: 0 };
  window.wakeLockCalls = state;
  Object.defineProperty(Navigator.prototype, 'wakeLock', {
    configurable: true,
    get: () => ({
      request: async (type) => {
        state.requested += 1;
        return { type, released: false, release: async () => { state.released += 1; } };
      },
    }),
  });`;
const NO_WAKE_LOCK = `Object.defineProperty(Navigator.prototype, 'wakeLock', { configurable: true, get: () => undefined });`;

for (const device of VIEWPORTS) {
  describe(`safe confirmations and many cards on a ${device.name} (${device.viewport.width}x${device.viewport.height})`, () => {
    let context: BrowserContext;
    let wallet: Page;
    let member: Awaited<ReturnType<typeof buildUser>> & { address: Address };
    let partner: Awaited<ReturnType<typeof signedInPartner>>;
    const http = () => overHttp(suite.service.baseUrl);
    const chain = () => suite.service.services.chains.get('main').client;
    const shot = (name: string) => screen(wallet, device.name, name);
    const operator = privateKeyToAccount(generatePrivateKey()).address;

    const mintToMember = async (name: string, count = 1, extra: Record<string, unknown> = {}, to = partner) => {
      const minted = await mintOk(http(), to.token, buildMintPayload(to, { to_address: Array(count).fill(member.address.toLowerCase()), name, image: CARD_IMAGE, animation_url: undefined, ...extra }));
      return minted.card_ids as number[];
    };

    /** Prepares a request as a BApp does and opens its universal link in the wallet. */
    const openRequest = async (body: object) => {
      const key = await prepareKey(http(), { bapp: BAPP, ...body });
      await wallet.goto(`${suite.service.baseUrl}/?target=${encodeURIComponent(`/a2a?request_key=${key}`)}`);
      await heading(wallet, 'Confirm request');
      return key;
    };

    /** The warnings shown, the PIN not reachable until every one is acknowledged; then approved with the PIN. */
    const acknowledgeAndApprove = async (key: string, titles: string[], name: string) => {
      const warnings = wallet.locator('#warnings');
      await warnings.waitFor();
      const shown = await warnings.locator('li strong').allTextContents();
      assert.deepEqual(shown.map((title) => title.replace(/\.$/, '')).sort(), [...titles].sort());
      assert.equal(await wallet.getByLabel('PIN (6 digits)').count(), 0, 'no PIN before the warnings are acknowledged');
      assert.equal(await wallet.getByRole('button', { name: 'Approve' }).count(), 0);
      await shot(`confirm-warning-${name}`);
      await wallet.getByLabel(/I read (the warning|all \d+ warnings) above/).check();
      await wallet.getByLabel('PIN (6 digits)').fill(member.pin);
      await wallet.getByRole('button', { name: 'Approve' }).click();
      await heading(wallet, 'Approved');
      const answer = await finalResult(http(), key);
      assert.equal(answer.status, 'completed', JSON.stringify(answer));
      return answer.result as Record<string, string>;
    };

    before(async () => {
      const built = await buildUser(suite.service.services);
      member = { ...built, address: getAddress(built.user.main_address) };
      await setBalance(suite.service.services, member.address, parseEther('10'));
      partner = await signedInPartner(http(), suite.service.services, { mintLimit: 1_000 });
      context = await suite.context(device);
      await context.route(CARD_IMAGE, (route) => route.fulfill({ contentType: 'image/svg+xml', body: CARD_SVG }));
      await context.addInitScript({ content: device.name === 'phone' ? STUB_WAKE_LOCK : NO_WAKE_LOCK });
      wallet = await watched(context, `${device.name} wallet`, suite.problems);
      await wallet.goto(`${suite.service.baseUrl}/sign-in`);
      await wallet.getByLabel('E-mail').fill(member.user.email);
      await wallet.getByLabel('Password').fill(member.password);
      await wallet.getByRole('button', { name: 'Sign in' }).click();
      await heading(wallet, 'Your wallet');
    });
    after(() => context?.close());

    test('setApprovalForAll on her card contract: warned, named by its partner; once acknowledged and approved the operator is approved on chain', async () => {
      await mintToMember('Loyalty Card');
      const key = await openRequest({
        type: 'execute_contract',
        transaction: { to: partner.contractAddress, from: member.address, encoded_function_call: encodeFunctionData({ abi: cardNftAbi, functionName: 'setApprovalForAll', args: [operator, true] }) },
      });
      const contractRow = wallet.locator('.detail').filter({ has: wallet.locator('dt', { hasText: /^Contract$/ }) });
      assert.match((await contractRow.textContent())!, new RegExp(`Example Cards\\s*by Example Partner Ltd\\s*${getAddress(partner.contractAddress)}`));
      assert.match((await wallet.locator('#warnings').textContent())!, /control of all your cards and tokens of Example Cards/);
      assert.match((await wallet.locator('.detail').filter({ has: wallet.locator('dt', { hasText: /^Your balance$/ }) }).textContent())!, /10 \w+ now, 9\.\d+ \w+ after/);
      await acknowledgeAndApprove(key, ['Control of all your cards', 'A contract you have never used'], 'approval-for-all');
      assert.equal(await chain().readContract({ address: partner.contractAddress as Address, abi: cardNftAbi, functionName: 'isApprovedForAll', args: [member.address, operator] }), true);
    });

    test('an unlimited approve of a token she holds: warned; approved, the allowance on chain has no limit', async () => {
      const { token } = fixtureContracts();
      const six = await deployFromOperator(suite.service.services, token, ['Six', 'SIX', 6, 1_000_000_000n]);
      await callFromOperator(suite.service.services, six, encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [member.address, 10_000_000n] }));
      const key = await openRequest({ type: 'execute_contract', transaction: { to: six, from: member.address, encoded_function_call: encodeFunctionData({ abi: erc20, functionName: 'approve', args: [operator, maxUint256] }) } });
      assert.match((await wallet.locator('#warnings').textContent())!, /take any amount of your SIX, now and later/);
      await acknowledgeAndApprove(key, ['No limit on what it can take', 'A contract you have never used'], 'unlimited-approve');
      assert.equal(await chain().readContract({ address: six, abi: erc20, functionName: 'allowance', args: [member.address, operator] }), maxUint256);
    });

    test('a transferFrom that moves her own card: warned (the contract is known by now); approved, the card is the recipient\'s on chain', async () => {
      const [cardId] = await mintToMember('Ticket To Give');
      const key = await openRequest({
        type: 'execute_contract',
        transaction: { to: partner.contractAddress, from: member.address, encoded_function_call: encodeFunctionData({ abi: cardNftAbi, functionName: 'transferFrom', args: [member.address, operator, BigInt(cardId!)] }) },
      });
      assert.match((await wallet.locator('#warnings').textContent())!, new RegExp(`moves your card #${cardId} of Example Cards`));
      await acknowledgeAndApprove(key, ['Moves something you own'], 'moves-own-card');
      const owner = await chain().readContract({ address: partner.contractAddress as Address, abi: cardNftAbi, functionName: 'ownerOf', args: [BigInt(cardId!)] });
      assert.equal(getAddress(owner), operator);
    });

    test('EIP-2612 permit and Permit2 signatures: warned; once acknowledged the signature is hers', async () => {
      const six = getAddress('0x' + 'ab'.repeat(20));
      for (const [typed, title, name] of [
        [permitTypedData(six, member.address, operator), 'A permit to spend your tokens', 'permit'],
        [permit2TypedData(six, operator), 'A Permit2 signature', 'permit2'],
      ] as const) {
        const key = await openRequest({ type: 'sign_typedData_v4', message: { value: JSON.stringify(typed) } });
        const { signature } = await acknowledgeAndApprove(key, [title], name);
        assert.ok(await verifyTypedData({ ...(typed as any), address: member.address, signature }));
      }
    });

    test('a harmless request has no warning: the PIN is asked at once', async () => {
      await openRequest({ type: 'send_coin', transaction: { to: operator, amount: '0.5', from: member.address } });
      await wallet.getByLabel('PIN (6 digits)').waitFor();
      assert.equal(await wallet.locator('#warnings').count(), 0);
      await wallet.getByRole('button', { name: 'Cancel request' }).click();
      await heading(wallet, 'Request canceled');
    });

    test('60 cards in two collections: searched by name, sorted newest first and by name, folded by collection', async () => {
      await mintToMember('Coffee Stamp', 20);
      await mintToMember('Concert Ticket', 20);
      // Cards are dated to the second (created_at): the last collection is minted in a later second
      // than the others, so "newest first" has one right order.
      const second = Math.floor(Date.now() / 1000);
      while (Math.floor(Date.now() / 1000) <= second) await new Promise((resolve) => setTimeout(resolve, 50));
      const gym = await signedInPartner(http(), suite.service.services, { mintLimit: 1_000 });
      await suite.service.services.store.db.updateTable('partners').set({ service_name: `City Gym ${device.name}` }).where('id', '=', gym.partner.id).execute();
      await mintToMember('Gym Pass', 20, {}, gym);

      await wallet.goto(`${suite.service.baseUrl}/cards`);
      await heading(wallet, 'Your cards');
      const tiles = wallet.locator('.card-tile:visible');
      const names = () => wallet.locator('.card-tile:visible .card-tile-name').allTextContents();
      await wallet.getByRole('heading', { name: `City Gym ${device.name}` }).waitFor();
      const all = (await names()).length;
      assert.ok(all >= 61, `every card is shown: ${all}`);

      await wallet.getByLabel('Search by name').fill('gym');
      await wallet.locator('#card-count').filter({ hasText: `20 of ${all} cards match “gym”.` }).waitFor();
      assert.deepEqual(new Set(await names()), new Set(['Gym Pass']));
      assert.equal(await tiles.count(), 20);
      assert.equal(await wallet.getByRole('heading', { name: 'Example Cards' }).count(), 0, 'a collection without a match is left out');
      await shot('cards-search');
      await wallet.getByLabel('Search by name').fill('nothing like this');
      await wallet.locator('#no-match').waitFor();
      await wallet.getByLabel('Search by name').fill('');

      await wallet.getByLabel('Sort').selectOption('newest');
      await wallet.getByRole('region', { name: 'Cards, newest first' }).waitFor();
      assert.deepEqual((await names()).slice(0, 20), Array(20).fill('Gym Pass'), 'the last minted first');
      await wallet.getByLabel('Sort').selectOption('name');
      const byName = await names();
      assert.deepEqual(byName, [...byName].sort((a, b) => a.localeCompare(b, undefined, { sensitivity: 'base', numeric: true })));
      assert.equal(byName.length, all);
      await shot('cards-by-name');

      await wallet.getByLabel('Sort').selectOption('collection');
      await wallet.getByRole('button', { name: 'Collapse all' }).click();
      assert.equal(await tiles.count(), 0);
      const gymFold = wallet.locator('.bapp-group', { has: wallet.getByRole('heading', { name: `City Gym ${device.name}` }) }).locator('button.fold');
      assert.equal(await gymFold.getAttribute('aria-expanded'), 'false');
      await wallet.getByRole('button', { name: `Expand City Gym ${device.name}` }).click();
      assert.equal(await gymFold.getAttribute('aria-expanded'), 'true');
      assert.equal(await gymFold.textContent(), `Collapse City Gym ${device.name}`);
      assert.deepEqual(new Set(await names()), new Set(['Gym Pass']));
      await shot('cards-folded');
      await wallet.getByRole('button', { name: 'Expand all' }).click();
      assert.equal(await tiles.count(), all);
    });

    test('show at the counter: the holder-only codes alone on the screen, kept on where the browser allows; Done and Escape close it', async () => {
      const [cardId] = await mintToMember('Counter Card', 1, { secure: { qr_code: 'COUNTER-4411', bar_code: 'CT-4411' } });
      await wallet.goto(`${suite.service.baseUrl}/cards/${partner.nftId}/${cardId}`);
      await heading(wallet, 'Counter Card');
      const opener = wallet.getByRole('button', { name: 'Show at the counter' });
      await opener.click();
      const view = wallet.getByRole('dialog', { name: 'Counter Card' });
      await view.getByRole('img', { name: 'Secure QR code of Counter Card' }).waitFor();
      await view.getByRole('img', { name: 'Secure bar code of Counter Card' }).waitFor();
      const box = (await view.boundingBox())!;
      assert.deepEqual([box.width, box.height], [device.viewport.width, device.viewport.height], 'the whole screen');
      assert.equal(await wallet.evaluate(() => document.activeElement?.id), 'counter-done');
      if (device.name === 'phone') {
        await view.getByRole('status').filter({ hasText: 'The screen stays on while this is shown.' }).waitFor();
        assert.deepEqual(await wallet.evaluate(() => (window as any).wakeLockCalls), { requested: 1, released: 0 });
      } else {
        await view.getByRole('status').filter({ hasText: 'This browser cannot keep the screen on' }).waitFor();
      }
      await shot('card-at-counter');
      await wallet.keyboard.press('Escape');
      await view.waitFor({ state: 'detached' });
      assert.equal(await wallet.evaluate(() => document.activeElement?.id), 'show-at-counter', 'the focus goes back to the button');
      // A function, not a string: the app's CSP refuses eval, which a string predicate may be run by.
      if (device.name === 'phone') {
        await wallet.waitForFunction(
          () => {
            const calls = (window as unknown as { wakeLockCalls: { requested: number; released: number } }).wakeLockCalls;
            return calls.requested === 1 && calls.released === 1;
          },
          undefined,
          { timeout: 5_000 },
        );
      }
      await opener.click();
      await view.getByRole('button', { name: 'Done' }).click();
      await view.waitFor({ state: 'detached' });
    });
  });
}

test('no script error, CSP refusal or failed load on any page', () => suite.assertNoProblems());
