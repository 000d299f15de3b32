import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { cardNftAbi } from '@wallet-service/contracts';
import { getAddress, parseEther, type Address } from 'viem';
import { buildMintPayload, partnerCall } from '../cards/testing/card-factories.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { freshPhone } from '../people/test-support.ts';
import { buildUser } from '../testing/factories.ts';
import { heading, overHttp, screen, VIEWPORTS, walletAppSuite, watched } from '../testing/wallet-app-harness.ts';
import { unlockMemberPin } from '../users/commands.ts';

/**
 * The member's own screens in headless Chromium against `wallet-service serve`: sign-up (each
 * refusal shown), the home screen's addresses, QR codes, balance and test coins (checked on chain),
 * PIN change and the PIN lockout, the session list and sign-out everywhere, and a person a partner
 * sent a card by name and phone signing up and owning it on chain.
 */

const suite = walletAppSuite();
const { problems } = suite;

const SEVENTEEN_YEARS_AGO = new Date(Date.now() - 17 * 365.25 * 86_400_000).toISOString().slice(0, 10);

for (const device of VIEWPORTS) {
  describe(`the member's account on a ${device.name} (${device.viewport.width}x${device.viewport.height})`, () => {
    let context: BrowserContext;
    let wallet: Page;
    const shot = (name: string) => screen(wallet, device.name, name);
    const newcomer = { name: `Alex ${device.name === 'phone' ? 'Phone' : 'Desk'} Rivera`, phone: freshPhone(), email: `alex-${randomUUID()}@example.com`, password: 'correct horse battery', pin: '246810' };
    const chain = () => suite.service.services.chains.get('main').client;

    before(async () => {
      context = await suite.context(device);
      wallet = await watched(context, `${device.name} wallet`, problems);
    });
    after(() => context?.close());

    async function fillSignUp(person: { name: string; phone: string; email: string; password: string; birth?: string; pin: string; pinAgain?: string }) {
      await wallet.getByLabel('Legal name').fill(person.name);
      await wallet.getByLabel('Phone number').fill(person.phone);
      await wallet.getByLabel('E-mail').fill(person.email);
      await wallet.getByLabel('Password').fill(person.password);
      await wallet.getByLabel('Birth date').fill(person.birth ?? '1991-04-12');
      await wallet.getByLabel('PIN (6 digits', { exact: false }).fill(person.pin);
      await wallet.getByLabel('PIN again').fill(person.pinAgain ?? person.pin);
      await wallet.getByRole('button', { name: 'Create wallet' }).click();
    }
    const refused = async (text: string | RegExp) => {
      await wallet.getByRole('alert').filter({ hasText: text }).waitFor();
      await wallet.getByRole('button', { name: 'Create wallet' }).and(wallet.locator(':enabled')).waitFor();
    };

    test('sign-up: every refusal is told in words and keeps nothing; then the wallet opens signed in', async () => {
      const existing = await buildUser(suite.service.services);
      await wallet.goto(`${suite.service.baseUrl}/`);
      await heading(wallet, 'Sign in');
      await wallet.getByRole('link', { name: 'Create a wallet' }).click();
      await heading(wallet, 'Create your wallet');
      assert.equal(wallet.url(), `${suite.service.baseUrl}/sign-up`);
      await shot('sign-up');

      await fillSignUp({ ...newcomer, pinAgain: '246811' });
      await refused('The two PINs are not the same.');
      // A PIN or password too easy to guess: the rule's message under its field.
      await fillSignUp({ ...newcomer, pin: '111111' });
      await refused('The PIN is one digit repeated');
      assert.equal(await wallet.locator('#pin-error').count(), 1, 'shown under the PIN field');
      await fillSignUp({ ...newcomer, password: 'password' });
      await refused('The password is one of the most common passwords.');
      assert.equal(await wallet.locator('#password-error').count(), 1, 'shown under the password field');
      await fillSignUp({ ...newcomer, birth: '2999-01-01' });
      await refused('The birth date is not valid');
      await shot('sign-up-error');
      await fillSignUp({ ...newcomer, birth: SEVENTEEN_YEARS_AGO });
      await refused('You must be 19 or older');
      await fillSignUp({ ...newcomer, email: existing.user.email });
      await refused('This e-mail address is already used');
      await fillSignUp({ ...newcomer, name: existing.user.name, phone: existing.user.phone });
      await refused('A member with this name and phone number already exists');
      await fillSignUp({ ...newcomer, name: 'R2 D2' });
      await refused('The legal name does not match your identity check.');
      // A card to this person is being minted: its invite waits for the reserved wallet.
      const inviteId = randomUUID();
      await suite.service.services.store.db
        .insertInto('person_invites')
        .values({ id: inviteId, partner_id: 'partner-e2e', phone: newcomer.phone, name: newcomer.name, reserved_wallet_id: null, created_at: Math.floor(Date.now() / 1000), sent_at: null, quota_charges: null, used_at: null })
        .execute();
      await fillSignUp(newcomer);
      await refused('A card is being sent to you right now');
      await suite.service.services.store.db.deleteFrom('person_invites').where('id', '=', inviteId).execute();
      const members = await suite.service.services.store.db.selectFrom('users').select('id').where('email', '=', newcomer.email).execute();
      assert.deepEqual(members, [], 'no refusal kept a member');

      await fillSignUp(newcomer);
      await heading(wallet, 'Your wallet');
      await wallet.waitForURL(`${suite.service.baseUrl}/`);
      const signedUp = await suite.service.services.store.db.selectFrom('users').select('email').where('email', '=', newcomer.email).execute();
      assert.equal(signedUp.length, 1, `the member is kept: ${JSON.stringify(signedUp)}`);
      const cookies = await context.cookies(suite.service.baseUrl);
      const session = cookies.find((cookie) => cookie.name === 'wallet_session')!;
      assert.ok(session, 'the session is a cookie');
      assert.deepEqual([session.httpOnly, session.sameSite, session.secure], [true, 'Lax', false]);
      assert.equal(await wallet.evaluate(() => document.cookie), '', 'the script cannot read it');
    });

    test('home: the address on every chain (a QR code for each non-EVM one), the coins with the ticker; test coins arrive on chain', async () => {
      const member = await suite.service.services.store.db.selectFrom('users').selectAll().where('email', '=', newcomer.email).executeTakeFirstOrThrow();
      const evm = getAddress(member.main_address);
      await wallet.locator('.balance[data-chain="main"] .coins').filter({ hasText: '0 MAIN' }).waitFor();
      const addresses = await wallet.locator('.address .mono').allTextContents();
      assert.deepEqual(addresses, [evm, member.bitcoin_address, member.solana_address, member.tron_address, member.xrpl_address]);
      assert.match(addresses[1]!, /^bc1q/);
      await wallet.locator('svg.address-qr').nth(3).waitFor();
      assert.equal(await wallet.locator('svg.address-qr').count(), 4, 'a QR code per non-EVM address (the EVM one is on Receive, with its chain)');
      assert.match((await wallet.locator('svg.address-qr path').first().getAttribute('d'))!, /^M\d+ \d+h1v1h-1z/);
      await wallet.getByRole('button', { name: 'Copy EVM address' }).click();
      await wallet.locator('.address').first().getByRole('status').filter({ hasText: /Copied|select the address/ }).waitFor();
      await shot('home-addresses');

      await wallet.getByRole('button', { name: 'Get test coins' }).click();
      await wallet.getByRole('status').filter({ hasText: '10 test MAIN arrived.' }).waitFor();
      await wallet.locator('.balance[data-chain="main"] .coins').filter({ hasText: '10 MAIN' }).waitFor();
      assert.equal(await chain().getBalance({ address: evm }), parseEther('10'));
      await shot('home-test-coins');
      await wallet.getByRole('button', { name: 'Get test coins' }).click();
      await wallet.getByRole('status').filter({ hasText: 'Not so fast' }).waitFor();
      assert.equal(await chain().getBalance({ address: evm }), parseEther('10'), 'once per interval');
    });

    test('account: a wrong PIN is told, the PIN changes; five wrong ones lock it, shown with how to get unlocked', async () => {
      await wallet.getByRole('link', { name: 'Account' }).click();
      await heading(wallet, 'Account and security');
      await wallet.locator('.session').filter({ hasText: '(this browser)' }).waitFor();
      await shot('account');
      const change = async (oldPin: string, newPin: string) => {
        await wallet.getByLabel('Current PIN').fill(oldPin);
        await wallet.getByLabel('New PIN (6 digits)').fill(newPin);
        await wallet.getByLabel('New PIN again').fill(newPin);
        await wallet.getByRole('button', { name: 'Change PIN' }).click();
      };
      await change('000000', '135790');
      await wallet.getByRole('alert').filter({ hasText: 'The PIN is wrong.' }).waitFor();
      await wallet.locator('#pin-failures').filter({ hasText: '1 wrong PIN in a row' }).waitFor();
      await change(newcomer.pin, '654321');
      await wallet.locator('#new-pin-error').filter({ hasText: 'The PIN is a run of digits in order' }).waitFor();
      await change(newcomer.pin, '135790');
      await wallet.getByRole('status').filter({ hasText: 'Your PIN is changed.' }).waitFor();
      newcomer.pin = '135790';
      for (let attempt = 1; attempt <= 5; attempt += 1) {
        await change('999999', '582016');
        await (attempt < 5 ? wallet.locator('#pin-failures').filter({ hasText: `${attempt} wrong PIN` }) : wallet.locator('#pin-locked')).waitFor();
      }
      assert.match((await wallet.locator('#pin-locked').textContent())!, /locked after five wrong PINs.*wallet-service user unlock --email/);
      assert.equal(await wallet.getByLabel('Current PIN').count(), 0, 'no PIN is asked while locked');
      await shot('account-pin-locked');
      await unlockMemberPin(suite.service.services, newcomer.email);
      await wallet.reload();
      await heading(wallet, 'Account and security');
      await wallet.getByLabel('Current PIN').waitFor();
    });

    test('sessions: another browser is listed and signed out from here; sign-out everywhere ends this one too', async () => {
      const other = await suite.browser.newContext();
      const otherPage = await watched(other, `${device.name} other browser`, problems);
      await otherPage.goto(`${suite.service.baseUrl}/sign-in`);
      await otherPage.getByLabel('E-mail').fill(newcomer.email);
      await otherPage.getByLabel('Password').fill(newcomer.password);
      await otherPage.getByRole('button', { name: 'Sign in' }).click();
      await heading(otherPage, 'Your wallet');
      await wallet.reload();
      await heading(wallet, 'Account and security');
      await wallet.locator('.session').nth(1).waitFor();
      await wallet.locator('.session').filter({ hasNotText: '(this browser)' }).getByRole('button', { name: 'Sign out there' }).click();
      await wallet.locator('.session').nth(1).waitFor({ state: 'detached' });
      await otherPage.reload();
      await heading(otherPage, 'Sign in');
      await other.close();

      const cookie = (await context.cookies(suite.service.baseUrl)).find((candidate) => candidate.name === 'wallet_session')!;
      await wallet.getByRole('button', { name: 'Sign out everywhere' }).click();
      await heading(wallet, 'Sign in');
      assert.equal((await context.cookies(suite.service.baseUrl)).length, 0, 'the browser dropped the cookie');
      const me = await fetch(`${suite.service.baseUrl}/v2/wallet-app/me`, { headers: { cookie: `wallet_session=${cookie.value}` } });
      assert.equal(((await me.json()) as { code: number }).code, 402, 'the session is over on the service too');
      await wallet.getByLabel('E-mail').fill(newcomer.email);
      await wallet.getByLabel('Password').fill(newcomer.password);
      await wallet.getByLabel('Password').press('Enter');
      await heading(wallet, 'Your wallet');
    });

    test('a person a partner sent a card by name and phone signs up: the reserved wallet and the card are theirs on chain', async () => {
      const http = overHttp(suite.service.baseUrl);
      const partner = await signedInPartner(http, suite.service.services);
      const person = { name: `Jordan ${device.name === 'phone' ? 'Mobile' : 'Desktop'} Kim`, phone: freshPhone() };
      const minted = await partnerCall(http, partner.token, 'POST', '/v2/wallet/mint/person', buildMintPayload(partner, { to_address: undefined, to_person: [[person.name, person.phone]] }));
      assert.equal(minted.statusCode, 200, minted.body);
      const cardId = BigInt(minted.json().card_ids[0]);
      const reserved = await suite.service.services.store.db.selectFrom('reserved_wallets').selectAll().where('phone', '=', person.phone).executeTakeFirstOrThrow();

      await wallet.getByRole('button', { name: 'Sign out', exact: true }).click();
      await heading(wallet, 'Sign in');
      await wallet.getByRole('link', { name: 'Create a wallet' }).click();
      await heading(wallet, 'Create your wallet');
      await fillSignUp({ ...person, email: `jordan-${randomUUID()}@example.com`, password: 'another long password', pin: '864200' });
      await heading(wallet, 'Your wallet');
      assert.equal(await wallet.locator('.address .mono').first().textContent(), getAddress(reserved.address));
      const owner = await chain().readContract({ address: partner.contractAddress as Address, abi: cardNftAbi, functionName: 'ownerOf', args: [cardId] });
      assert.equal(getAddress(owner), getAddress(reserved.address), 'the card minted before sign-up is the new member\'s');
      const invite = await suite.service.services.store.db.selectFrom('person_invites').selectAll().where('phone', '=', person.phone).executeTakeFirstOrThrow();
      assert.ok(invite.used_at, 'the invite is marked used');
      await shot('home-after-invite');
    });
  });
}

test('no script error, CSP refusal or failed load on any page', () => suite.assertNoProblems());
