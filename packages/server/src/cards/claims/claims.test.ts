import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { openTestServices, type TestServices } from '../../testing/test-services.ts';
import { buildAddresses } from '../testing/card-factories.ts';
import { CARD_CLAIM_LEASE_MS, releaseCardClaims, takeCardClaims, type ClaimedCard } from './commands.ts';

let services: TestServices;
before(async () => {
  services = await openTestServices();
});
after(async () => {
  await services.cleanup();
});

const chain = () => services.chains.get('main');

/** A card of a made-up contract: the claims only name cards, they read no chain. */
function someCard(): ClaimedCard {
  return { chain: 'main', contract: buildAddresses(1)[0]!, cardId: 7 };
}

async function holder(card: ClaimedCard): Promise<string | undefined> {
  const row = await services.store.db.selectFrom('card_claims').select('operation').where('contract', '=', card.contract).where('card_id', '=', String(card.cardId)).executeTakeFirst();
  return row?.operation;
}

async function claimAged(card: ClaimedCard, ms: number): Promise<void> {
  await services.store.db.updateTable('card_claims').set({ taken_ms: Date.now() - ms }).where('contract', '=', card.contract).execute();
}

/** A plain coin transfer from the operator under `operation`, the kind of transaction a claim guards. */
async function submitUnder(operation: string) {
  const signer = await services.operator.signer();
  return services.outbox.submit({ idempotencyKey: operation, chain: 'main', signer, to: buildAddresses(1)[0]!, value: 1n });
}

async function setAutomine(on: boolean): Promise<void> {
  await chain().client.request({ method: 'evm_setAutomine', params: [on] } as never);
}

test('of many operations at once one claims a card; the others get nothing; a resumed operation (same key) gets it again', async () => {
  const card = someCard();
  const operations = Array.from({ length: 10 }, () => `op:${randomUUID()}`);
  const taken = await Promise.all(operations.map((operation) => takeCardClaims(services, [card], operation)));
  const winners = operations.filter((_, index) => taken[index]!.length === 1);
  assert.equal(winners.length, 1);
  assert.equal(await holder(card), winners[0]);
  assert.equal((await takeCardClaims(services, [card], winners[0]!)).length, 1, 'the same operation again (a retry under its Idempotency-Key)');
  // Released with no transaction stored: the card is free at once.
  await releaseCardClaims(services, [card], winners[0]!);
  assert.equal(await holder(card), undefined);
  assert.equal((await takeCardClaims(services, [card], operations[0]!)).length, 1);
});

test('a claim left without a transaction is taken over only after the lease; a release by the old holder then changes nothing', async () => {
  const card = someCard();
  const stopped = `op:${randomUUID()}`;
  assert.equal((await takeCardClaims(services, [card], stopped)).length, 1);
  await claimAged(card, CARD_CLAIM_LEASE_MS / 2);
  assert.equal((await takeCardClaims(services, [card], `op:${randomUUID()}`)).length, 0, 'within the lease');
  await claimAged(card, CARD_CLAIM_LEASE_MS + 1_000);
  const next = `op:${randomUUID()}`;
  assert.equal((await takeCardClaims(services, [card], next)).length, 1, 'after the lease');
  await releaseCardClaims(services, [card], stopped);
  assert.equal(await holder(card), next, 'the old holder cannot release the new claim');
});

test('a claim whose transaction is pending holds, whatever its age, and is kept on release; once the transaction is mined it is taken over', async () => {
  const card = someCard();
  const sender = `op:${randomUUID()}`;
  assert.equal((await takeCardClaims(services, [card], sender)).length, 1);
  await setAutomine(false);
  let submitted;
  try {
    submitted = await submitUnder(sender);
    await claimAged(card, CARD_CLAIM_LEASE_MS * 10);
    assert.equal((await takeCardClaims(services, [card], `op:${randomUUID()}`)).length, 0, 'pending: still held');
    await releaseCardClaims(services, [card], sender);
    assert.equal(await holder(card), sender, 'a pending transaction keeps its claim on release');
  } finally {
    await setAutomine(true);
  }
  await chain().client.request({ method: 'evm_mine', params: [] } as never);
  const final = await services.outbox.waitForFinal(submitted.id);
  assert.equal(final.status, 'mined');
  const next = `op:${randomUUID()}`;
  assert.equal((await takeCardClaims(services, [card], next)).length, 1, 'mined: taken over');
  assert.equal(await holder(card), next);
});

test('several cards: each is claimed on its own; duplicates count once', async () => {
  const [a, b] = [someCard(), someCard()];
  const first = `op:${randomUUID()}`;
  assert.equal((await takeCardClaims(services, [a], first)).length, 1);
  const second = `op:${randomUUID()}`;
  const taken = await takeCardClaims(services, [a, b, b], second);
  assert.deepEqual(taken.map((card) => card.contract), [b.contract]);
  await releaseCardClaims(services, [a, b], second);
  assert.equal(await holder(a), first, 'a release lets go only of what the operation holds');
  assert.equal(await holder(b), undefined);
});
