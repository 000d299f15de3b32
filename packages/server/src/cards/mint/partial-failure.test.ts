import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { encodeFunctionData, zeroAddress, type Address } from 'viem';
import { cardNftAbi } from '@wallet-service/contracts';
import { openTestApp, type TestApp } from '../../testing/test-services.ts';
import { signedInPartner } from '../../partner-api/testing/partner-session.ts';
import { epochSeconds } from '../../store/database.ts';
import { monthKey } from '../../lib/time.ts';
import { buildAddresses, buildMintPayload, expectedCardIds, indexedToHead, partnerCall } from '../testing/card-factories.ts';
import { setBalance } from '../../a2a/testing/support.ts';
import { partnerCardContract } from '../partner-signing.ts';
import { mintCards, mintIdempotencyKey } from './commands.ts';
import { designOf, type MintDesignPayload } from './payload.ts';
import { ABANDONED_BATCH_SECONDS, recoverMintBatches } from './recovery.ts';

// Three cards per transaction, so a small mint spans several batches.
let t: TestApp;
before(async () => {
  t = await openTestApp({ cards: { maxBatchSize: 3 } });
});
after(async () => {
  await t.cleanup();
});

async function mintCount(token: string): Promise<number> {
  return (await partnerCall(t.app, token, 'GET', '/v2/wallet/mint/count')).json().mint_count;
}

async function partnerRow(id: string) {
  return t.services.store.db.selectFrom('partners').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

test('a mint that fails part of the way: the answer, the lists and mint_count show exactly what was minted', async () => {
  const partner = await signedInPartner(t.app, t.services);
  const [a, b, c, d, e] = buildAddresses(5) as [Address, Address, Address, Address, Address];
  // The second batch reverts on chain (ERC-721 refuses the zero address); the first and third mint.
  const recipients = [a, b, c, d, zeroAddress, e, a];
  const design = designOf(buildMintPayload(partner) as unknown as MintDesignPayload);
  const row = await partnerRow(partner.partner.id);
  const outcome = await mintCards(t.services, { partner: row, contract: await partnerCardContract(t.services, row), authorization: { pin: partner.pinHash }, design, recipients });

  assert.equal(outcome.mintedCount, 4);
  assert.equal(outcome.failCount, 3);
  // The first batch's cards go to a, b and c in ascending address order.
  const [idA, idB, idC] = expectedCardIds([a, b, c], 3) as [number, number, number];
  assert.deepEqual(outcome.cardIdsByRecipient, [idA, idB, idC, null, null, null, 4]);
  assert.equal(outcome.hashes.length, 3);
  const receipts = await Promise.all(outcome.hashes.map((hash) => t.services.chains.get('main').client.getTransactionReceipt({ hash })));
  assert.deepEqual(receipts.map((receipt) => receipt.status), ['success', 'reverted', 'success']);
  assert.equal(await mintCount(partner.token), 4, 'mint_count counts exactly the minted cards');
  const nftId = Number(partner.nftId);
  await indexedToHead(t.services);
  for (const [owner, expected] of [[a, [idA, 4]], [b, [idB]], [c, [idC]], [d, []], [e, []]] as const) {
    const page = await t.services.cardIndex.listByOwner({ chain: 'main', owner, contract: partner.contractAddress, limit: 10 });
    assert.deepEqual(page.cards.map((card) => card.tokenId), expected, `cards of ${owner}`);
  }
  const batches = await t.services.store.db
    .selectFrom('card_mint_batches')
    .select(['sequence', 'status', 'first_token_id'])
    .where('partner_id', '=', partner.partner.id)
    .orderBy('sequence')
    .execute();
  assert.deepEqual(batches.map((batch) => [batch.sequence, batch.status, batch.first_token_id === null ? null : Number(batch.first_token_id)]), [[0, 'minted', 1], [1, 'failed', null], [2, 'minted', 4]]);
  assert.equal((await t.app.inject({ method: 'GET', url: `/v2/metadata/${nftId}/4` })).json().card_id, 4, 'the third batch serves its metadata');
  assert.equal((await t.app.inject({ method: 'GET', url: `/v2/metadata/${nftId}/5` })).statusCode, 404);
});

test('a first batch that cannot be paid for: 4202, and nothing of the mint is stored, counted or sent', async () => {
  const partner = await signedInPartner(t.app, t.services);
  await setBalance(t.services, partner.partner.main_address as Address, 0n);
  const response = await partnerCall(t.app, partner.token, 'POST', '/v2/wallet/mint', buildMintPayload(partner, { to_address: buildAddresses(7) }));
  assert.deepEqual(response.json(), { code: 4202, err: 'insufficient funds for the transaction fee' });
  const batches = await t.services.store.db.selectFrom('card_mint_batches').select(['status', 'tx_hash']).where('partner_id', '=', partner.partner.id).execute();
  assert.deepEqual(batches, []);
  assert.equal((await t.services.store.db.selectFrom('card_designs').select('id').where('partner_id', '=', partner.partner.id).execute()).length, 0);
  assert.equal(await mintCount(partner.token), 0);
});

test('through A7, several batches: every card minted, in order, one transaction per batch', async () => {
  const partner = await signedInPartner(t.app, t.services);
  const recipients = buildAddresses(8);
  const response = await partnerCall(t.app, partner.token, 'POST', '/v2/wallet/mint', buildMintPayload(partner, { to_address: recipients }));
  assert.equal(response.statusCode, 200, response.body);
  const answer = response.json();
  assert.equal(answer.hashes.length, 3);
  // Batches of 3, 3 and 2 recipients: ids 1-3, 4-6 and 7-8, in ascending address order within each.
  assert.deepEqual(answer.card_ids, expectedCardIds(recipients, 3));
  assert.equal(answer.fail_count, 0);
  for (const [i, recipient] of recipients.entries()) {
    const owner = await t.services.chains.get('main').client.readContract({
      address: partner.contractAddress as Address,
      abi: cardNftAbi,
      functionName: 'ownerOf',
      args: [BigInt(answer.card_ids[i])],
    });
    assert.equal(owner.toLowerCase(), recipient);
  }
});

test('recovery finishes what a stopped mint call left: a signed batch is settled, an unsigned one is given back', async () => {
  const partner = await signedInPartner(t.app, t.services);
  const row = await partnerRow(partner.partner.id);
  const period = monthKey(new Date(), t.services.config.timeZone);
  const design = designOf(buildMintPayload(partner) as unknown as MintDesignPayload);
  const now = epochSeconds();
  const designId = crypto.randomUUID();
  const signedBatch = crypto.randomUUID();
  const unsignedBatch = crypto.randomUUID();
  const [x, y] = buildAddresses(2) as [Address, Address];
  // The state a process leaves when it is killed after storing its batches and signing only the first.
  await t.services.store.db.transaction().execute(async (trx) => {
    await trx.updateTable('partners').set({ mint_count: 3, mint_period: period }).where('id', '=', row.id).execute();
    await trx
      .insertInto('card_designs')
      .values({ id: designId, partner_id: row.id, chain: 'main', contract: partner.contractAddress.toLowerCase(), nft_id: Number(partner.nftId), name: design.metadata.name, metadata: JSON.stringify(design.metadata), secure: null, sendable: 1, created_at: now })
      .execute();
    const batch = { design_id: designId, partner_id: row.id, chain: 'main', contract: partner.contractAddress.toLowerCase(), period, status: 'reserved' as const, outbox_id: null, tx_hash: null, first_token_id: null, error: null, updated_at: now };
    await trx.insertInto('card_mint_batches').values({ ...batch, id: signedBatch, sequence: 0, recipients: JSON.stringify([x, y]), card_count: 2, created_at: now }).execute();
    await trx.insertInto('card_mint_batches').values({ ...batch, id: unsignedBatch, sequence: 1, recipients: JSON.stringify([x]), card_count: 1, created_at: now }).execute();
  });
  const key = await t.services.vault.unlock(row.key_id, partner.pinHash);
  const sent = await t.services.outbox.submit({
    idempotencyKey: mintIdempotencyKey(signedBatch),
    chain: 'main',
    signer: { address: key.address, account: key.account },
    to: partner.contractAddress as Address,
    data: encodeFunctionData({ abi: cardNftAbi, functionName: 'mintBatch', args: [[x, y], true] }),
  });
  await t.services.outbox.waitForFinal(sent.id);

  // Soon after: the signed batch is settled; the unsigned one might still be signing, so it waits.
  assert.deepEqual(await recoverMintBatches(t.services), { minted: 1, failed: 0 });
  // Later: the unsigned one can no longer be signed; its card is given back.
  const later = new Date(Date.now() + (ABANDONED_BATCH_SECONDS + 1) * 1000);
  assert.deepEqual(await recoverMintBatches(t.services, later), { minted: 0, failed: 1 });
  assert.deepEqual(await recoverMintBatches(t.services, later), { minted: 0, failed: 0 }, 'nothing is settled twice');

  const batches = await t.services.store.db.selectFrom('card_mint_batches').select(['id', 'status', 'first_token_id', 'tx_hash']).where('design_id', '=', designId).execute();
  const byId = new Map(batches.map((batch) => [batch.id, batch]));
  assert.equal(byId.get(signedBatch)?.status, 'minted');
  assert.equal(Number(byId.get(signedBatch)?.first_token_id), 1);
  assert.equal(byId.get(signedBatch)?.tx_hash, sent.txHash);
  assert.equal(byId.get(unsignedBatch)?.status, 'failed');
  assert.equal(await mintCount(partner.token), 2, 'the unsigned card no longer counts');
  const metadata = await t.app.inject({ method: 'GET', url: `/v2/metadata/${partner.nftId}/2` });
  assert.equal(metadata.statusCode, 200, 'the recovered batch serves its metadata');
  assert.equal(metadata.json().name, design.metadata.name);
});
