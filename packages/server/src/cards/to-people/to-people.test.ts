import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cardNftAbi } from '@wallet-service/contracts';
import type { Address } from 'viem';
import { openTestApp, type TestApp } from '../../testing/test-services.ts';
import { buildPhone, buildUser } from '../../testing/factories.ts';
import { signedInPartner } from '../../partner-api/testing/partner-session.ts';
import { buildMintPayload, indexedToHead, partnerCall } from '../testing/card-factories.ts';

let t: TestApp;
let strict: TestApp;
before(async () => {
  t = await openTestApp();
  // One invite per partner and day, to reach 4112 through A8.
  strict = await openTestApp({ invites: { senderDailyLimit: 1 } });
});
after(async () => {
  await t.cleanup();
  await strict.cleanup();
});

async function ownerOf(app: TestApp, contract: string, cardId: number): Promise<string> {
  const owner = await app.services.chains.get('main').client.readContract({ address: contract as Address, abi: cardNftAbi, functionName: 'ownerOf', args: [BigInt(cardId)] });
  return owner.toLowerCase();
}

async function invitesTo(app: TestApp, phone: string) {
  return app.services.store.db.selectFrom('messenger_messages').selectAll().where('to_phone', '=', phone).execute();
}

test('A8: a member gets the card at their wallet; a non-member at a reserved wallet, with one invite, and owns it on signing up', async () => {
  const partner = await signedInPartner(t.app, t.services);
  const member = await buildUser(t.services);
  const newcomer = { name: 'Jamie Newcomer', phone: buildPhone() };
  const national = member.user.phone.replace(/^\+1/, ''); // the default country (US) fills in +1
  const body = buildMintPayload(partner, { to_address: undefined, to_person: [[member.user.name, national], [newcomer.phone, newcomer.name]] });
  const response = await partnerCall(t.app, partner.token, 'POST', '/v2/wallet/mint/person', body);
  assert.equal(response.statusCode, 200, response.body);
  const answer = response.json();
  // One batch: ids 1 and 2, in ascending address order; card_ids says whose is whose.
  const [memberCard, newcomerCard] = answer.card_ids as [number, number];
  assert.deepEqual([memberCard, newcomerCard].sort(), [1, 2]);
  assert.equal(answer.minted_count, 2);
  assert.equal(await ownerOf(t, partner.contractAddress, memberCard), member.user.main_address);

  const reserved = await t.services.store.db.selectFrom('reserved_wallets').selectAll().where('phone', '=', newcomer.phone).executeTakeFirstOrThrow();
  assert.equal(await ownerOf(t, partner.contractAddress, newcomerCard), reserved.address.toLowerCase());
  assert.equal((await invitesTo(t, member.user.phone)).length, 0, 'members are not invited');
  const invites = await invitesTo(t, newcomer.phone);
  assert.equal(invites.length, 1);
  assert.match(invites[0]!.text, /Gold Member Card/);

  // A second card to the same person: same wallet, no second invite from this partner.
  const again = await partnerCall(t.app, partner.token, 'POST', '/v2/wallet/mint/person', buildMintPayload(partner, { to_address: undefined, to_person: [[newcomer.name, newcomer.phone]] }));
  assert.equal(again.statusCode, 200, again.body);
  assert.equal(await ownerOf(t, partner.contractAddress, 3), reserved.address.toLowerCase());
  assert.equal((await invitesTo(t, newcomer.phone)).length, 1);

  const signedUp = await buildUser(t.services, { name: newcomer.name, phone: newcomer.phone });
  assert.equal(signedUp.user.main_address, reserved.address.toLowerCase(), 'the wallet and its cards are theirs');
  await indexedToHead(t.services);
  const page = await t.services.cardIndex.listByOwner({ chain: 'main', owner: signedUp.user.main_address, limit: 10 });
  assert.deepEqual(page.cards.map((card) => card.tokenId), [newcomerCard, 3]);
  const key = await t.services.vault.unlock(signedUp.user.key_id, signedUp.pinHash);
  assert.equal(key.address, reserved.address.toLowerCase(), 'their PIN signs for it');
  assert.equal(await t.services.outbox.findByHash(answer.hash).then((tx) => tx?.receiptStatus), 'success');
});

test('A8 refusals change nothing: bad pairs 400, invite limit 4112, wrong PIN 4006', async () => {
  const partner = await signedInPartner(strict.app, strict.services);
  const mint = (to_person: unknown, extra: Record<string, unknown> = {}) =>
    partnerCall(strict.app, partner.token, 'POST', '/v2/wallet/mint/person', buildMintPayload(partner, { to_address: undefined, to_person, ...extra }));
  for (const bad of [[], [['only name']], [['Ann', 'Bea']], [['+14155550100', '+14155550101']], 'Ann', [['Ann', 'not a phone']]]) {
    const refused = await mint(bad);
    assert.equal(refused.statusCode, 400, JSON.stringify(bad));
    assert.equal(refused.json().code, 400);
  }
  const first = { name: 'Robin One', phone: buildPhone() };
  const second = { name: 'Robin Two', phone: buildPhone() };
  const wrongPin = await mint([[first.name, first.phone]], { pin: 'e'.repeat(64) });
  assert.deepEqual(wrongPin.json(), { code: 4006, err: 'invalid pin code' });
  const limited = await mint([[first.name, first.phone], [second.name, second.phone]]);
  assert.equal(limited.statusCode, 400, limited.body);
  assert.deepEqual(limited.json(), { code: 4112, err: 'sender daily limit exceeded' });
  const next = await strict.services.chains.get('main').client.readContract({ address: partner.contractAddress as Address, abi: cardNftAbi, functionName: 'nextTokenId' });
  assert.equal(next, 1n, 'nothing minted');
  assert.equal((await partnerCall(strict.app, partner.token, 'GET', '/v2/wallet/mint/count')).json().mint_count, 0);
  assert.equal((await invitesTo(strict, first.phone)).length + (await invitesTo(strict, second.phone)).length, 0);
  // The quota was given back: one invite still fits today.
  const ok = await mint([[first.name, first.phone]]);
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal((await invitesTo(strict, first.phone)).length, 1);
});

test('A11 sends a held card to a person; refusals for cards not held', async () => {
  const partner = await signedInPartner(t.app, t.services);
  const own = partner.partner.main_address;
  await partnerCall(t.app, partner.token, 'POST', '/v2/wallet/mint', buildMintPayload(partner, { to_address: [own, own] }));
  const nftId = Number(partner.nftId);
  const person = { name: 'Sam Person', phone: buildPhone() };
  const send = (cardId: number, body: Record<string, unknown> = {}) =>
    partnerCall(t.app, partner.token, 'POST', `/v2/wallet/nft/${nftId}/${cardId}/send/person`, {
      pin: partner.pinHash,
      card_name: 'Gold Member Card',
      to_person: [person.name, person.phone],
      ...body,
    });
  const sent = await send(1);
  assert.equal(sent.statusCode, 200, sent.body);
  assert.match(sent.json().hash, /^0x[0-9a-f]{64}$/);
  const reserved = await t.services.store.db.selectFrom('reserved_wallets').selectAll().where('phone', '=', person.phone).executeTakeFirstOrThrow();
  assert.equal(await ownerOf(t, partner.contractAddress, 1), reserved.address.toLowerCase());
  assert.equal((await invitesTo(t, person.phone)).length, 1);
  assert.deepEqual((await send(1)).json(), { code: 4201, err: 'card is not held by the partner' });
  assert.equal((await send(2, { to_person: ['Sam Person'] })).statusCode, 400);
  assert.equal((await send(2, { pin: 'e'.repeat(64) })).json().code, 4006);
  assert.equal(await ownerOf(t, partner.contractAddress, 2), own);
  assert.equal((await invitesTo(t, person.phone)).length, 1, 'refused sends invite nobody');
});
