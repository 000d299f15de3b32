import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { cardNftAbi } from '@wallet-service/contracts';
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
import { callFromOperator, deployFromOperator, fixtureContracts, setBalance } from '../a2a/testing/support.ts';
import { buildMintPayload, mintOk, partnerCall } from '../cards/testing/card-factories.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import type { Services } from '../services.ts';
import { launchChromium } from '../testing/browser.ts';
import { buildUser } from '../testing/factories.ts';
import { MAX_PIN_FAILURES } from '../custody/key-vault.ts';
import { sha256Hex } from '../custody/passwords.ts';
import { buildPng } from '../uploads/testing/media.ts';
import { uploadBody } from '../uploads/testing/multipart.ts';
import { unlockMemberPin } from '../users/commands.ts';
import { heading, overHttp, screen, startWalletAppService, VIEWPORTS, watched as watchedPage, type WalletAppService } from '../testing/wallet-app-harness.ts';

/**
 * The wallet app in headless Chromium against `wallet-service serve` (a child process, as
 * `npm start` runs it) on its embedded anvil node and store, at a phone's and a desktop's size.
 * Requests come from the example BApp's page (its buttons, or its SDK bundle for the types it has
 * no button for); outcomes are checked on chain and by verifying signatures. Every screen is
 * scanned with axe-core and saved as a screenshot in test-output/wallet-app/ (WALLET_TEST_SCREENSHOTS=1).
 */

/** The card picture partners' mints name in these tests, answered by the browser itself. */
const CARD_IMAGE = 'https://cdn.example.com/cards/gold.svg';
const CARD_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200" viewBox="0 0 320 200"><rect width="320" height="200" rx="18" fill="#1d4ed8"/><text x="24" y="110" font-family="sans-serif" font-size="34" fill="#fff">Gold Member</text></svg>`;

let service: WalletAppService;
let baseUrl: string;
let services: Services;
let browser: Browser;
const problems: string[] = [];

before(async () => {
  service = await startWalletAppService();
  ({ baseUrl, services } = service);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await service?.stop();
});

const watched = (context: BrowserContext, label: string) => watchedPage(context, label, problems);

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

/** A call to a contract the member never used is warned of (safe-confirmations.e2e.test.ts): no PIN until she acknowledges it. */
async function acknowledgeNewContract(wallet: Page): Promise<void> {
  await wallet.locator('#warnings').filter({ hasText: 'A contract you have never used' }).waitFor();
  assert.equal(await wallet.getByLabel('PIN (6 digits)').count(), 0);
  await wallet.getByLabel('I read the warning above and I still want to approve this request').check();
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
      await wallet.getByRole('alert').filter({ hasText: 'The e-mail or the password is wrong.' }).waitFor();
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
      // In the chain's ticker; the balance after is the balance less the amount and the fee.
      assert.equal(await wallet.locator('.amount').textContent(), '0.25 MAIN');
      assert.match((await wallet.locator('main').textContent())!, /Your balance10 MAIN now, 9\.7\d* MAIN after/);
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
      // The symbol and decimals are the token contract's own, read from the chain; the fee is estimated.
      assert.equal(await wallet.locator('.amount').textContent(), '12.5 TT');
      assert.match((await wallet.locator('main').textContent())!, /Token symbolTT/);
      assert.match((await wallet.locator('main').textContent())!, /Token decimals6/);
      assert.match((await wallet.locator('main').textContent())!, /Estimated feeabout [0-9.]+ MAIN.*Your TT balance50 TT now, 37\.5 TT after/);
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
      await acknowledgeNewContract(wallet);
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
      // Read now, not long-polled: an unchanged request would hold the poll for its whole wait.
      assert.equal(((await (await fetch(`${baseUrl}/v2/a2a/result?request_key=${key}`)).json()) as { status: string }).status, 'requested');
      await approveWithPin(wallet, member.pin);
      assert.equal((await finalResult(key)).status, 'completed');
    });

    test('a locked PIN is told before any PIN is asked, with the way to get unlocked; unlocked, the PIN field is back', async () => {
      for (let attempt = 1; attempt <= MAX_PIN_FAILURES; attempt++) {
        await assert.rejects(services.vault.unlock(member.user.key_id, sha256Hex('000000')), { code: attempt < MAX_PIN_FAILURES ? 4006 : 403 });
      }
      const key = await prepareInBapp(bapp, 'signMessage', { value: 'Locked out' });
      await wallet.goto(await linkOf(bapp, key));
      await heading(wallet, 'Confirm request');
      await wallet.locator('#pin-locked').waitFor();
      assert.match((await wallet.locator('#pin-locked').textContent())!, /locked after five wrong PINs.*wallet-service user unlock --email/);
      assert.equal(await wallet.getByLabel('PIN (6 digits)').count(), 0, 'no PIN is asked while locked');
      assert.equal(await wallet.getByRole('button', { name: 'Approve' }).count(), 0);
      await wallet.getByRole('button', { name: 'Cancel request' }).waitFor();
      await shot(wallet, 'confirm-pin-locked');

      await unlockMemberPin(services, member.user.email);
      await wallet.reload();
      await heading(wallet, 'Confirm request');
      await wallet.getByLabel('PIN (6 digits)').waitFor();
      assert.equal(await wallet.locator('#pin-locked').count(), 0);
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

    test('execute_contract without an ABI: the call is recognised from its 4-byte selector and decoded; the tokens move', async () => {
      const { token } = fixtureContracts();
      const contract = await deployFromOperator(services, token, ['Selector Token', 'SEL', 18, parseEther('1000')]);
      await callFromOperator(services, contract, encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [member.address, parseEther('5')] }));
      const recipient = privateKeyToAccount(generatePrivateKey()).address;
      const call = encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [recipient, parseEther('2')] });
      const key = await prepareInBapp(bapp, 'executeContract', { to: contract, encodedFunctionCall: call, from: member.address });
      await wallet.goto(await linkOf(bapp, key));
      await heading(wallet, 'Confirm request');
      const details = (await wallet.locator('main').textContent())!;
      for (const text of ['transfer', 'recognised from its selector 0xa9059cbb', recipient, '2000000000000000000', 'Coins sent with the callnone']) assert.ok(details.includes(text), text);
      await shot(wallet, 'confirm-execute-selector');
      await acknowledgeNewContract(wallet);
      await approveWithPin(wallet, member.pin);
      assert.equal((await finalResult(key)).result.status, 'success');
      assert.equal(await chain().readContract({ address: contract, abi: token.abi as Abi, functionName: 'balanceOf', args: [recipient] }), parseEther('2'));
    });

    test('a BApp that names itself as the wallet is refused: no PIN is asked, only Cancel', async () => {
      const answer = await bapp.evaluate(async () => {
        const sdk = (window as unknown as { WalletA2A: any }).WalletA2A;
        return sdk.createClient({ baseUrl: location.origin }).prepare.signMessage({ bappName: 'Wallet Support', value: 'Verify your account' });
      });
      await wallet.goto(await linkOf(bapp, answer.request_key));
      await heading(wallet, 'Confirm request');
      await wallet.locator('#impersonation').waitFor();
      assert.equal(await wallet.getByLabel('PIN (6 digits)').count(), 0);
      await shot(wallet, 'impersonation');
      await wallet.getByRole('button', { name: 'Cancel request' }).click();
      await heading(wallet, 'Request canceled');
      assert.equal((await finalResult(answer.request_key)).status, 'canceled');
    });

    test('cards: a partner’s card appears under its BApp; its page shows the secure part to the holder only; it is sent and leaves the list', async () => {
      const http = overHttp(baseUrl);
      const partner = await signedInPartner(http, services);
      const upload = uploadBody(buildPng({ width: 64, height: 64 }), 'secret.png', 'image/png');
      const stored = await fetch(`${baseUrl}/v2/wallet/nftResource/secure`, { method: 'POST', headers: { authorization: partner.token, ...upload.headers }, body: new Uint8Array(upload.payload) });
      assert.equal(stored.status, 200);
      const secureImage = ((await stored.json()) as { filename: string }).filename;
      const to = [member.address.toLowerCase()];
      const design = { image: CARD_IMAGE, name: 'Gold Member Card', animation_url: undefined, qr_code: undefined, bar_code: undefined };
      const secure = { qr_code: 'ENTRY-7731-GOLD', bar_code: 'GM-7731', attributes: [{ trait_type: 'seat', value: '12A' }], images: [{ low_resolution: secureImage }] };
      const [held] = (await mintOk(http, partner.token, buildMintPayload(partner, { ...design, to_address: to, secure }))).card_ids;
      const [fixed] = (await mintOk(http, partner.token, buildMintPayload(partner, { ...design, to_address: to, name: 'Staff Pass', sendable: false }))).card_ids;

      await wallet.goto(`${baseUrl}/cards`);
      await heading(wallet, 'Your cards');
      // Test partners share a service name: the group of this partner's contract is found by its nft_id.
      const group = wallet.locator(`section[aria-labelledby="bapp-${partner.nftId}"]`);
      await group.waitFor();
      assert.equal(await group.getByRole('heading', { level: 2 }).textContent(), partner.partner.service_name);
      assert.match((await group.textContent())!, /2 cards/);
      await wallet.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('.card-tile img')].every((image) => image.complete && image.naturalWidth > 0));
      await shot(wallet, 'cards');

      await group.getByRole('link', { name: /Gold Member Card/ }).click();
      await heading(wallet, 'Gold Member Card');
      const securePart = wallet.locator('#secure-part');
      await securePart.getByRole('img', { name: 'Secure QR code of Gold Member Card' }).waitFor();
      await securePart.getByRole('img', { name: 'Secure bar code of Gold Member Card' }).waitFor();
      await securePart.getByRole('img', { name: 'Secure image 1 of Gold Member Card' }).waitFor();
      assert.match((await securePart.textContent())!, /ENTRY-7731-GOLD.*GM-7731.*seat.*12A/s);
      await shot(wallet, 'card');

      // Anyone else: the holder's view and its secure file are refused, and say nothing of the secure part.
      const stranger = await buildUser(services);
      const session = (await http.inject({ method: 'POST', url: '/v2/wallet-app/sessions', payload: { email: stranger.user.email, password: sha256Hex(stranger.password) } })).json().session_token;
      const theirs = await http.inject({ method: 'GET', url: `/v2/wallet-app/cards/${partner.nftId}/${held}`, headers: { authorization: `Bearer ${session}` } });
      assert.equal(theirs.statusCode, 404);
      assert.doesNotMatch(theirs.body, /ENTRY-7731/);
      assert.equal((await http.inject({ method: 'GET', url: `/v2/wallet-app/files/secure/${secureImage}`, headers: { authorization: `Bearer ${session}` } })).statusCode, 404);

      await wallet.getByRole('link', { name: 'Send this card' }).click();
      await heading(wallet, 'Send a card');
      const recipient = privateKeyToAccount(generatePrivateKey()).address;
      await wallet.getByLabel('Wallet address', { exact: true }).fill(recipient);
      await shot(wallet, 'send-card');
      await wallet.getByLabel('PIN (6 digits)').fill('000000');
      await wallet.getByRole('button', { name: 'Send card' }).click();
      await wallet.getByRole('alert').filter({ hasText: 'The PIN is wrong' }).waitFor();
      await wallet.getByLabel('PIN (6 digits)').fill(member.pin);
      await wallet.getByLabel('PIN (6 digits)').press('Enter');
      await heading(wallet, 'Card sent');
      await shot(wallet, 'card-sent');
      const ownerOf = (cardId: number) =>
        chain().readContract({ address: partner.contractAddress as Address, abi: cardNftAbi, functionName: 'ownerOf', args: [BigInt(cardId)] });
      assert.equal(await ownerOf(held!), recipient);

      await wallet.getByRole('link', { name: 'Back to your cards' }).click();
      await heading(wallet, 'Your cards');
      await group.getByRole('link', { name: /Staff Pass/ }).waitFor();
      assert.equal(await group.getByRole('link', { name: /Gold Member Card/ }).count(), 0, 'the sent card left the list');
      assert.match((await group.textContent())!, /1 card/);

      // A card its app made not sendable offers no way to send it.
      await group.getByRole('link', { name: /Staff Pass/ }).click();
      await heading(wallet, 'Staff Pass');
      await wallet.locator('#send-unavailable').waitFor();
      assert.equal(await wallet.getByRole('link', { name: 'Send this card' }).count(), 0);
      await shot(wallet, 'card-not-sendable');
      assert.equal(await ownerOf(fixed!), member.address);

      await wallet.getByRole('link', { name: 'Activity' }).click();
      await heading(wallet, 'Activity');
      const activity = wallet.locator('#activity-items');
      const sentCard = activity.locator('li[data-kind="card"]').filter({ hasText: `Sent Gold Member Card #${held}` }).first();
      assert.match((await sentCard.textContent())!, new RegExp(`done.*to ${recipient}`));
      assert.equal(await sentCard.getByRole('link', { name: `Gold Member Card #${held}` }).getAttribute('href'), `/cards/${partner.nftId}/${held}`);
      const request = activity.locator('li[data-kind="request"]').filter({ hasText: 'Example BApp' }).first();
      assert.match((await request.getByRole('link', { name: 'Example BApp' }).getAttribute('href'))!, /^\/\?target=%2Fa2a%3Frequest_key%3D/);
      await shot(wallet, 'activity');
    });

    test('sign out: back to sign-in, and the session no longer works', async () => {
      await wallet.goto(`${baseUrl}/`);
      await heading(wallet, 'Your wallet');
      const token = (await context.cookies(baseUrl)).find((cookie) => cookie.name === 'wallet_session')!.value;
      await wallet.getByRole('button', { name: 'Sign out', exact: true }).click();
      await heading(wallet, 'Sign in');
      const me = await fetch(`${baseUrl}/v2/wallet-app/me`, { headers: { cookie: `wallet_session=${token}` } });
      assert.equal(((await me.json()) as { code: number }).code, 402);
    });
  });
}

test('no script error, CSP refusal or failed load on any page', () => {
  assert.deepEqual(problems, []);
});
