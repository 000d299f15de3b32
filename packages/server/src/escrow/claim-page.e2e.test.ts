import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { cardNftAbi } from '@wallet-service/contracts';
import { getAddress, type Address } from 'viem';
import { signedInMember } from '../a2a/testing/support.ts';
import { buildMintPayload, mintOk, partnerCall } from '../cards/testing/card-factories.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { freshPhone } from '../people/test-support.ts';
import { launchChromium } from '../testing/browser.ts';
import { openTestApp, type TestApp } from '../testing/test-services.ts';

let t: TestApp;
let baseUrl: string;
let browser: Browser;
before(async () => {
  t = await openTestApp();
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await t?.cleanup();
});

/** A partner's card put into escrow through A15 and A17; the claim link, moved to this test's listening address. */
async function escrowedCard() {
  const partner = await signedInPartner(t.app, t.services);
  const own = partner.partner.main_address;
  const minted = await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: [own], name: 'Concert Ticket' }));
  const body = { pin: partner.pinHash, contract_address: partner.contractAddress };
  assert.equal((await partnerCall(t.app, partner.token, 'POST', '/v2/escrow/approve', body)).statusCode, 200);
  const deposit = await partnerCall(t.app, partner.token, 'POST', '/v2/escrow', { ...body, card_ids: minted.card_ids });
  assert.equal(deposit.statusCode, 200, deposit.body);
  const link = new URL(deposit.json().claim_links[0] as string);
  return { partner, cardId: minted.card_ids[0]!, url: `${baseUrl}${link.pathname}${link.hash}`, pathname: link.pathname, secret: link.hash.slice(1) };
}

/** A new browser context's page, with the URLs it requested and its script errors, console errors and failed loads. */
async function watchedPage() {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  const requested: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // A failed load is told by the response listener below, with its address.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
  });
  page.on('request', (request) => requested.push(request.url()));
  page.on('response', (response) => {
    // Signed out, the app's first question (is the session cookie a session?) is answered 401.
    const signedOutCheck = response.status() === 401 && new URL(response.url()).pathname === '/v2/wallet-app/me';
    if (response.status() >= 400 && !response.url().endsWith('/favicon.ico') && !signedOutCheck) problems.push(`${response.status()} ${response.url()}`);
  });
  return { context, page, problems, requested };
}

async function ownerOnChain(card: { partner: { contractAddress: string }; cardId: string | number }): Promise<Address> {
  return t.services.chains.get('main').client.readContract({
    address: card.partner.contractAddress as Address,
    abi: cardNftAbi,
    functionName: 'ownerOf',
    args: [BigInt(card.cardId)],
  });
}

test('a member opens a claim link in Chromium, signs in, sees the card and claims it; the secret never reaches the server', async () => {
  const card = await escrowedCard();
  const member = await signedInMember(t.app, t.services);
  const { context, page, problems, requested } = await watchedPage();
  try {
    await page.goto(card.url);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    assert.equal(await page.textContent('.lead'), 'Sign in to claim the card.');
    await page.getByLabel('E-mail').fill(member.user.email);
    await page.getByLabel('Password').fill(member.password);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('heading', { level: 1, name: 'A card for you' }).waitFor();
    // The screen keeps its title while the claim loads; its status line comes with the card.
    await page.locator('#claim-status').waitFor();
    assert.match((await page.textContent('main')) ?? '', /sent you the card Concert Ticket/);
    assert.equal(await page.textContent('#claim-status'), 'Waiting for you to claim it');
    await page.getByRole('button', { name: 'Claim the card' }).click();
    await page.getByRole('heading', { level: 1, name: 'The card is yours' }).waitFor();
    assert.equal(await page.textContent('#claim-status'), 'Claimed');
    assert.match((await page.textContent('main')) ?? '', new RegExp(`Claimed to${getAddress(member.address)}`));
    assert.equal(await page.locator('#claim-button').count(), 0);

    const owner = await ownerOnChain(card);
    assert.equal(owner.toLowerCase(), member.address.toLowerCase(), 'the card is the member\'s on chain');

    // Opened again later, the link says the card is claimed and offers nothing more.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'A card for you' }).waitFor();
    assert.equal(await page.textContent('#claim-status'), 'Claimed');
    assert.equal(await page.locator('#claim-button').count(), 0);
    assert.deepEqual(problems, []);
    assert.ok(requested.some((url) => url.endsWith(card.pathname)), 'the claim page was loaded');
    assert.ok(requested.every((url) => !url.includes(card.secret)), 'no URL the browser requested carries the secret');
  } finally {
    await context.close();
  }
});

test('a visitor without an account opens a claim link, signs up from it, is back on the same claim and claims the card', async () => {
  const card = await escrowedCard();
  const { context, page, problems, requested } = await watchedPage();
  const visitor = { name: 'Casey Morgan', phone: freshPhone(), email: `casey-${randomUUID()}@example.com`, password: 'a long enough password', pin: '975310' };
  try {
    await page.goto(card.url);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByRole('link', { name: 'Create a wallet' }).click();
    await page.getByRole('heading', { level: 1, name: 'Create your wallet' }).waitFor();
    // The way back is a path in the query; the secret stays in the fragment.
    assert.equal(page.url(), `${baseUrl}/sign-up?return=${encodeURIComponent(card.pathname)}#${card.secret}`);
    // "Sign in" from here goes back to the claim too.
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    assert.equal(page.url(), card.url);
    await page.getByRole('link', { name: 'Create a wallet' }).click();

    await page.getByLabel('Legal name').fill(visitor.name);
    await page.getByLabel('Phone number').fill(visitor.phone);
    await page.getByLabel('E-mail').fill(visitor.email);
    await page.getByLabel('Password').fill(visitor.password);
    await page.getByLabel('Birth date').fill('1990-06-15');
    await page.getByLabel('PIN (6 digits', { exact: false }).fill(visitor.pin);
    await page.getByLabel('PIN again').fill(visitor.pin);
    await page.getByRole('button', { name: 'Create wallet' }).click();

    await page.getByRole('heading', { level: 1, name: 'A card for you' }).waitFor();
    assert.equal(page.url(), card.url, 'back on the same claim, with its secret');
    assert.equal(await page.textContent('#claim-status'), 'Waiting for you to claim it');
    await page.getByRole('button', { name: 'Claim the card' }).click();
    await page.getByRole('heading', { level: 1, name: 'The card is yours' }).waitFor();

    const newMember = await t.services.store.db.selectFrom('users').select('main_address').where('email', '=', visitor.email).executeTakeFirstOrThrow();
    assert.equal(getAddress(await ownerOnChain(card)), getAddress(newMember.main_address), 'the card is the new member\'s on chain');
    assert.deepEqual(problems, []);
    assert.ok(requested.every((url) => !url.includes(card.secret)), 'no URL the browser requested carries the secret');
  } finally {
    await context.close();
  }
});

test('a claim link without its secret, or with a wrong one, says so and claims nothing', async () => {
  const card = await escrowedCard();
  const member = await signedInMember(t.app, t.services);
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(`${baseUrl}${card.pathname}`);
    await page.getByLabel('E-mail').fill(member.user.email);
    await page.getByLabel('Password').fill(member.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'This claim link is incomplete' }).waitFor();
    // Another fragment pasted into the address bar: the page follows it without a reload.
    await page.goto(`${baseUrl}${card.pathname}#${'0'.repeat(64)}`);
    await page.getByRole('alert').filter({ hasText: 'This claim link is not valid' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Claim the card' }).count(), 0);
  } finally {
    await context.close();
  }
});
