import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { cardNftAbi } from '@wallet-service/contracts';
import { getAddress, parseEther, type Address } from 'viem';
import { setBalance } from '../a2a/testing/support.ts';
import { buildMintPayload, mintOk, partnerCall } from '../cards/testing/card-factories.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { buildUser } from '../testing/factories.ts';
import { heading, overHttp, screen, VIEWPORTS, walletAppSuite, watched as watchedPage } from '../testing/wallet-app-harness.ts';

/**
 * The wallet app without dead ends, in headless Chromium against `wallet-service serve` at a phone's
 * and a desktop's size: a card sent to a person by legal name and a phone written as people write
 * it (a member, and someone not a member yet: checked on chain), the app's own 404 page, its own
 * validation words, offline with Retry, a session ended in another tab, sessions named by browser
 * and system, and a claimed card's link to its page, which names its BApp.
 */

const CARD_IMAGE = 'https://cdn.example.com/cards/ticket.svg';
const CARD_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200" viewBox="0 0 320 200"><rect width="320" height="200" rx="18" fill="#0b6b3a"/><text x="24" y="110" font-family="sans-serif" font-size="34" fill="#fff">Ticket</text></svg>`;

const suite = walletAppSuite();
const { problems } = suite;

let koreanSequence = 0;
/** A Korean mobile number no other test uses: E.164 and as people in Korea write it. */
function koreanMobile(): { e164: string; national: string } {
  koreanSequence += 1;
  const digits = String(10_000_000 + ((process.pid * 7919 + koreanSequence * 104_729) % 89_999_999)).slice(0, 8);
  return { e164: `+8210${digits}`, national: `010-${digits.slice(0, 4)}-${digits.slice(4)}` };
}

for (const device of VIEWPORTS) {
  describe(`no dead ends on a ${device.name} (${device.viewport.width}x${device.viewport.height})`, () => {
    let context: BrowserContext;
    let wallet: Page;
    let member: Awaited<ReturnType<typeof buildUser>> & { address: Address };
    let partner: Awaited<ReturnType<typeof signedInPartner>>;
    const http = () => overHttp(suite.service.baseUrl);
    const shot = (page: Page, name: string) => screen(page, device.name, name);
    const ownerOf = async (cardId: number) =>
      getAddress(
        await suite.service.services.chains
          .get('main')
          .client.readContract({ address: partner.contractAddress as Address, abi: cardNftAbi, functionName: 'ownerOf', args: [BigInt(cardId)] }),
      );
    const mintToMember = async (name: string) => {
      const minted = await mintOk(http(), partner.token, buildMintPayload(partner, { to_address: [member.address.toLowerCase()], name, image: CARD_IMAGE, animation_url: undefined }));
      return minted.card_ids[0]!;
    };

    before(async () => {
      const built = await buildUser(suite.service.services);
      member = { ...built, address: getAddress(built.user.main_address) };
      // The member pays the fee of each card sent.
      await setBalance(suite.service.services, member.address, parseEther('10'));
      partner = await signedInPartner(http(), suite.service.services);
      context = await suite.context(device);
      // The card's picture and its public code images, answered by the browser itself.
      await context.route('https://cdn.example.com/**', (route) => route.fulfill({ contentType: 'image/svg+xml', body: CARD_SVG }));
      wallet = await watchedPage(context, `${device.name} wallet`, problems);
    });
    after(() => context?.close());

    test("an unknown page is the app's own 404, with the way back; API paths keep their JSON 404", async () => {
      const answer = await wallet.goto(`${suite.service.baseUrl}/nope/not-here`);
      assert.equal(answer?.status(), 404);
      await heading(wallet, 'Page not found');
      await shot(wallet, 'not-found');
      const api = await fetch(`${suite.service.baseUrl}/v2/nope`, { headers: { accept: 'text/html' } });
      assert.deepEqual([api.status, await api.json()], [404, { code: 404, err: 'not Found' }]);
      await wallet.getByRole('link', { name: 'Go to your wallet' }).click();
      await heading(wallet, 'Sign in');
    });

    test("sign-in: the app's own words for an empty form; sessions are named by browser and system", async () => {
      await wallet.getByRole('button', { name: 'Sign in' }).click();
      await wallet.getByRole('alert').filter({ hasText: 'Enter your e-mail address.' }).waitFor();
      assert.equal(await wallet.locator('#email').getAttribute('aria-invalid'), 'true');
      await wallet.getByLabel('E-mail').fill(member.user.email);
      await wallet.getByLabel('Password').fill(member.password);
      await wallet.getByRole('button', { name: 'Sign in' }).click();
      await heading(wallet, 'Your wallet');

      await wallet.getByRole('link', { name: 'Account' }).click();
      await heading(wallet, 'Account and security');
      const current = wallet.locator('.session').filter({ hasText: '(this browser)' });
      await current.waitFor();
      const text = (await current.textContent())!;
      assert.match(text, /^(Headless )?Chrome on Linux \(this browser\)/, text);
      assert.doesNotMatch(text, /Mozilla|AppleWebKit/);
      await shot(wallet, 'account-sessions-named');
    });

    test('a card sent to a member by legal name and a national phone number with its country: theirs on chain', async () => {
      const phone = koreanMobile();
      const recipient = await buildUser(suite.service.services, { name: `Min-jun Park ${device.name}`, phone: phone.e164 });
      const cardId = await mintToMember('Concert Ticket');
      await wallet.goto(`${suite.service.baseUrl}/cards/${partner.nftId}/${cardId}/send`);
      await heading(wallet, 'Send a card');
      await wallet.getByLabel('A person, by name and phone number').check();
      // The name field is a new element, not the address field with its pattern.
      assert.equal(await wallet.locator('#to_name').getAttribute('pattern'), null);
      await wallet.getByLabel('Legal name').fill(recipient.user.name);
      await wallet.getByLabel('Country').selectOption('KR');
      await wallet.getByLabel('Phone number', { exact: true }).fill(phone.national);
      await wallet.getByLabel('PIN (6 digits)').fill('12345');
      await wallet.getByRole('button', { name: 'Send card' }).click();
      await wallet.getByRole('alert').filter({ hasText: 'The PIN is 6 digits.' }).waitFor();
      await shot(wallet, 'send-card-person');
      await wallet.getByLabel('PIN (6 digits)').fill(member.pin);
      await wallet.getByRole('button', { name: 'Send card' }).click();
      await heading(wallet, 'Card sent');
      assert.equal(await ownerOf(cardId), getAddress(recipient.user.main_address));
      await shot(wallet, 'card-sent-person');
    });

    test('a card sent to someone not a member yet waits in the wallet kept for them; a wrong number is told in words', async () => {
      const phone = koreanMobile();
      const name = `Seo-yeon Choi ${device.name}`;
      const cardId = await mintToMember('Museum Pass');
      await wallet.goto(`${suite.service.baseUrl}/cards/${partner.nftId}/${cardId}/send`);
      await heading(wallet, 'Send a card');
      await wallet.getByLabel('A person, by name and phone number').check();
      await wallet.getByLabel('Legal name').fill(name);
      await wallet.getByLabel('Country').selectOption('KR');
      await wallet.getByLabel('Phone number', { exact: true }).fill('010-12');
      await wallet.getByLabel('PIN (6 digits)').fill(member.pin);
      await wallet.getByRole('button', { name: 'Send card' }).click();
      await wallet.getByRole('alert').filter({ hasText: 'This phone number is not valid for the country chosen.' }).waitFor();
      assert.doesNotMatch((await wallet.locator('main').textContent())!, /Error \d|bad request/);
      assert.equal(await ownerOf(cardId), member.address, 'nothing moved');

      await wallet.getByLabel('Phone number', { exact: true }).fill(phone.national);
      await wallet.getByLabel('PIN (6 digits)').fill(member.pin);
      await wallet.getByRole('button', { name: 'Send card' }).click();
      await heading(wallet, 'Card sent');
      const reserved = await suite.service.services.store.db.selectFrom('reserved_wallets').selectAll().where('phone', '=', phone.e164).executeTakeFirstOrThrow();
      assert.equal(await ownerOf(cardId), getAddress(reserved.address));
      assert.match((await wallet.locator('main').textContent())!, /waits for them/);
    });

    test('a claimed card links to its page, which names its BApp', async () => {
      const own = partner.partner.main_address;
      const minted = await mintOk(http(), partner.token, buildMintPayload(partner, { to_address: [own], name: 'Festival Wristband', image: CARD_IMAGE, animation_url: undefined }));
      const body = { pin: partner.pinHash, contract_address: partner.contractAddress };
      assert.equal((await partnerCall(http(), partner.token, 'POST', '/v2/escrow/approve', body)).statusCode, 200);
      const deposit = await partnerCall(http(), partner.token, 'POST', '/v2/escrow', { ...body, card_ids: minted.card_ids });
      assert.equal(deposit.statusCode, 200, deposit.body);
      await wallet.goto(deposit.json().claim_links[0] as string);
      await wallet.getByRole('button', { name: 'Claim the card' }).click();
      await heading(wallet, 'The card is yours');
      await wallet.getByRole('link', { name: 'Open Festival Wristband' }).click();
      await heading(wallet, 'Festival Wristband');
      assert.equal(new URL(wallet.url()).pathname, `/cards/${partner.nftId}/${minted.card_ids[0]}`);
      assert.equal(await wallet.locator('#card-bapp strong').textContent(), partner.partner.service_name);
      assert.equal(await ownerOf(minted.card_ids[0]!), member.address);
      await shot(wallet, 'card-names-bapp');
    });

    test('offline: a clear message with Retry, and Retry loads the screen once back online', async () => {
      await wallet.goto(`${suite.service.baseUrl}/cards`);
      await heading(wallet, 'Your cards');
      await context.setOffline(true);
      const offline = wallet.locator('#offline');
      try {
        await wallet.getByRole('link', { name: 'Activity' }).click();
        await offline.filter({ hasText: 'You seem to be offline' }).waitFor();
        await wallet.getByRole('alert').filter({ hasText: 'The wallet service was not reached, so nothing was sent or changed.' }).waitFor();
        assert.doesNotMatch((await wallet.locator('body').textContent())!, /Failed to fetch/);
        await shot(wallet, 'offline');
      } finally {
        await context.setOffline(false);
      }
      await offline.getByRole('button', { name: 'Retry' }).click();
      await heading(wallet, 'Activity');
      // The screen loaded: the member's activity, or the words for none.
      await wallet.locator('#activity-items').or(wallet.getByText('Nothing has happened in your wallet yet.')).waitFor();
      await offline.waitFor({ state: 'detached' });
    });

    test('signing out everywhere in one tab: the other tab says the session ended', async () => {
      const other = await watchedPage(context, `${device.name} second tab`, problems);
      await other.goto(`${suite.service.baseUrl}/cards`);
      await heading(other, 'Your cards');
      await wallet.goto(`${suite.service.baseUrl}/account`);
      await heading(wallet, 'Account and security');
      await wallet.getByRole('button', { name: 'Sign out everywhere' }).click();
      await heading(wallet, 'Sign in');
      await heading(other, 'Sign in');
      await other.locator('#session-ended').filter({ hasText: 'you signed out in another tab' }).waitFor();
      await shot(other, 'session-ended');
      await other.close();
    });
  });
}

test('no script error, CSP refusal or failed load on any page', () => {
  // The 404 page is answered 404 on purpose; the offline journey's refused loads are the point of it.
  suite.assertNoProblems(/: 404 http:\/\/[^ ]+\/nope\/not-here$|ERR_INTERNET_DISCONNECTED/);
});
