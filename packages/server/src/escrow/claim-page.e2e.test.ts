import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { cardNftAbi } from '@wallet-service/contracts';
import type { Address } from 'viem';
import { signedInMember } from '../a2a/test-support.ts';
import { buildMintPayload, mintOk, partnerCall } from '../cards/testing/card-factories.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
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

test('a member opens a claim link in Chromium, signs in, sees the card and claims it; the secret never reaches the server', async () => {
  const card = await escrowedCard();
  const member = await signedInMember(t.app, t.services);
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
    if (response.status() >= 400 && !response.url().endsWith('/favicon.ico')) problems.push(`${response.status()} ${response.url()}`);
  });
  try {
    await page.goto(card.url);
    await page.waitForSelector('#sign-in:not([hidden])');
    assert.equal(await page.textContent('#message'), 'Sign in to claim the card.');
    await page.fill('#email', member.user.email);
    await page.fill('#password', member.password);
    await page.click('#sign-in button[type=submit]');

    await page.waitForSelector('#claim:not([hidden])');
    assert.match((await page.textContent('#claim-summary')) ?? '', /sent you the card "Concert Ticket"/);
    assert.match((await page.textContent('#claim-details')) ?? '', /Waiting for you to claim it/);
    await page.click('#claim-button');
    await page.waitForFunction(() => document.querySelector('#message')?.textContent === 'The card is yours.');
    assert.match((await page.textContent('#claim-details')) ?? '', new RegExp(`Claimed to${member.address.toLowerCase()}`));
    assert.equal(await page.isHidden('#claim-button'), true);

    const owner = await t.services.chains.get('main').client.readContract({
      address: card.partner.contractAddress as Address,
      abi: cardNftAbi,
      functionName: 'ownerOf',
      args: [BigInt(card.cardId)],
    });
    assert.equal(owner.toLowerCase(), member.address.toLowerCase(), 'the card is the member\'s on chain');

    // Opened again later, the link says the card is claimed and offers nothing more.
    await page.reload();
    await page.waitForSelector('#claim:not([hidden])');
    assert.match((await page.textContent('#claim-details')) ?? '', /Claimed/);
    assert.equal(await page.isHidden('#claim-button'), true);
    assert.deepEqual(problems, []);
    assert.ok(requested.some((url) => url.endsWith(card.pathname)), 'the claim page was loaded');
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
    await page.fill('#email', member.user.email);
    await page.fill('#password', member.password);
    await page.click('#sign-in button[type=submit]');
    await page.waitForFunction(() => /incomplete/.test(document.querySelector('#message')?.textContent ?? ''));
    await page.goto(`${baseUrl}${card.pathname}#${'0'.repeat(64)}`);
    await page.waitForFunction(() => /4206/.test(document.querySelector('#message')?.textContent ?? ''));
    assert.equal(await page.isHidden('#claim'), true);
  } finally {
    await context.close();
  }
});
