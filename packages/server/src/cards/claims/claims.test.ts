import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, loadConfig } from '../../config/config.ts';
import type { Services } from '../../services.ts';
import { createTestInstallation, type TestInstallation } from '../../testing/test-services.ts';
import { buildAddresses } from '../testing/card-factories.ts';
import { holdCardClaims, releaseCardClaims, takeCardClaims, type ClaimedCard } from './commands.ts';

/** Short, so a holder can outwork it and a crashed holder's claim runs out within the test. */
const CARD_CLAIM_LEASE_MS = 3_000;

let installation: TestInstallation;
let services: Services;
before(async () => {
  installation = await createTestInstallation({ cards: { claimLeaseMs: CARD_CLAIM_LEASE_MS } });
  services = await installation.open();
});
after(async () => {
  await services?.close();
  await installation?.remove();
});

/** What takeCardClaims needs: the store and the configured lease. */
const claims = () => ({ store: services.store, leaseMs: services.config.cards.claimLeaseMs });

const chain = () => services.chains.get('main');

/** A card of a made-up contract: the claims only name cards, they read no chain. */
function someCard(): ClaimedCard {
  return { chain: 'main', contract: buildAddresses(1)[0]!, cardId: 7 };
}

async function holder(card: ClaimedCard): Promise<string | undefined> {
  const row = await services.store.db.selectFrom('card_claims').select('operation').where('contract', '=', card.contract).where('card_id', '=', String(card.cardId)).executeTakeFirst();
  return row?.operation;
}

async function takenMs(card: ClaimedCard): Promise<number | undefined> {
  const row = await services.store.db.selectFrom('card_claims').select('taken_ms').where('contract', '=', card.contract).where('card_id', '=', String(card.cardId)).executeTakeFirst();
  return row === undefined ? undefined : Number(row.taken_ms);
}

/** Waits (at most a minute) until the claim's taken_ms moves on from `since`; answers the new value. */
async function nextRenewal(card: ClaimedCard, since: number): Promise<number> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(50)) {
    const now = await takenMs(card);
    assert.ok(now !== undefined, 'the claim is still there');
    if (now !== since) return now;
  }
  throw new Error('the claim was not renewed within a minute');
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
  const taken = await Promise.all(operations.map((operation) => takeCardClaims(claims(), [card], operation)));
  const winners = operations.filter((_, index) => taken[index]!.length === 1);
  assert.equal(winners.length, 1);
  assert.equal(await holder(card), winners[0]);
  assert.equal((await takeCardClaims(claims(), [card], winners[0]!)).length, 1, 'the same operation again (a retry under its Idempotency-Key)');
  // Released with no transaction stored: the card is free at once.
  await releaseCardClaims(services, [card], winners[0]!);
  assert.equal(await holder(card), undefined);
  assert.equal((await takeCardClaims(claims(), [card], operations[0]!)).length, 1);
});

test('a claim left without a transaction is taken over only after the lease; a release by the old holder then changes nothing', async () => {
  const card = someCard();
  const stopped = `op:${randomUUID()}`;
  assert.equal((await takeCardClaims(claims(), [card], stopped)).length, 1);
  await claimAged(card, CARD_CLAIM_LEASE_MS / 2);
  assert.equal((await takeCardClaims(claims(), [card], `op:${randomUUID()}`)).length, 0, 'within the lease');
  await claimAged(card, CARD_CLAIM_LEASE_MS + 1_000);
  const next = `op:${randomUUID()}`;
  assert.equal((await takeCardClaims(claims(), [card], next)).length, 1, 'after the lease');
  await releaseCardClaims(services, [card], stopped);
  assert.equal(await holder(card), next, 'the old holder cannot release the new claim');
});

test('a claim whose transaction is pending holds, whatever its age, and is kept on release; once the transaction is mined it is taken over', async () => {
  const card = someCard();
  const sender = `op:${randomUUID()}`;
  assert.equal((await takeCardClaims(claims(), [card], sender)).length, 1);
  await setAutomine(false);
  let submitted;
  try {
    submitted = await submitUnder(sender);
    await claimAged(card, CARD_CLAIM_LEASE_MS * 10);
    assert.equal((await takeCardClaims(claims(), [card], `op:${randomUUID()}`)).length, 0, 'pending: still held');
    await releaseCardClaims(services, [card], sender);
    assert.equal(await holder(card), sender, 'a pending transaction keeps its claim on release');
  } finally {
    await setAutomine(true);
  }
  await chain().client.request({ method: 'evm_mine', params: [] } as never);
  const final = await services.outbox.waitForFinal(submitted.id);
  assert.equal(final.status, 'mined');
  const next = `op:${randomUUID()}`;
  assert.equal((await takeCardClaims(claims(), [card], next)).length, 1, 'mined: taken over');
  assert.equal(await holder(card), next);
});

test('several cards: each is claimed on its own; duplicates count once', async () => {
  const [a, b] = [someCard(), someCard()];
  const first = `op:${randomUUID()}`;
  assert.equal((await takeCardClaims(claims(), [a], first)).length, 1);
  const second = `op:${randomUUID()}`;
  const taken = await takeCardClaims(claims(), [a, b, b], second);
  assert.deepEqual(taken.map((card) => card.contract), [b.contract]);
  await releaseCardClaims(services, [a, b], second);
  assert.equal(await holder(a), first, 'a release lets go only of what the operation holds');
  assert.equal(await holder(b), undefined);
});

test('the lease is a validated setting (cards.claimLeaseMs)', () => {
  assert.equal(services.config.cards.claimLeaseMs, CARD_CLAIM_LEASE_MS);
  assert.equal(loadConfig({ env: {} }).cards.claimLeaseMs, 60_000, 'the default');
  for (const claimLeaseMs of [999, 3_600_001, 1.5]) {
    assert.throws(() => loadConfig({ env: {}, overrides: { cards: { claimLeaseMs } } }), ConfigError, `refused: ${claimLeaseMs}`);
  }
});

test('a holder that works longer than the lease keeps its claim: it is renewed, and nobody takes it over meanwhile', { timeout: 120_000 }, async () => {
  const card = someCard();
  const working = `op:${randomUUID()}`;
  const hold = await holdCardClaims(services, [card], working);
  assert.equal(hold.cards.length, 1);
  const first = (await takenMs(card))!;
  let renewedAt = first;
  let renewals = 0;
  // Right after each renewal a second caller tries: the claim is alive, so it is refused.
  while (renewals < 3 || renewedAt - first <= CARD_CLAIM_LEASE_MS) {
    renewedAt = await nextRenewal(card, renewedAt);
    renewals++;
    assert.equal((await takeCardClaims(claims(), [card], `op:${randomUUID()}`)).length, 0, `refused after renewal ${renewals}`);
    assert.equal(await holder(card), working);
  }
  assert.ok(renewedAt - first > CARD_CLAIM_LEASE_MS, 'the holder outworked the lease');
  await hold.release();
  assert.equal(await holder(card), undefined, 'released: no transaction was stored');
  // Released: no renewal brings it back.
  await sleep(CARD_CLAIM_LEASE_MS / 2);
  assert.equal(await holder(card), undefined);
});

test("a crashed holder's claim is taken over once the lease has run out after its last renewal", { timeout: 180_000 }, async () => {
  const card = someCard();
  const crashed = `op:${randomUUID()}`;
  // The holder is another process on the same store, killed with SIGKILL while it holds the card.
  const storeOptions = {
    databaseUrl: services.config.databaseUrl ?? undefined,
    sqlitePath: join(services.config.dataDir, 'wallet.sqlite'),
    postgresSchema: installation.postgresSchema,
  };
  const script = `
    import { openStore } from ${JSON.stringify(new URL('../../store/database.ts', import.meta.url).pathname)};
    import { holdCardClaims } from ${JSON.stringify(new URL('./commands.ts', import.meta.url).pathname)};
    const store = await openStore(JSON.parse(process.env.HOLDER_STORE));
    const config = { cards: { claimLeaseMs: ${CARD_CLAIM_LEASE_MS} } };
    const hold = await holdCardClaims({ config, store, outbox: undefined }, [JSON.parse(process.env.HOLDER_CARD)], process.env.HOLDER_OPERATION);
    console.log(hold.cards.length === 1 ? 'held' : 'busy');
    setInterval(() => {}, 60_000);
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, HOLDER_STORE: JSON.stringify(storeOptions), HOLDER_CARD: JSON.stringify(card), HOLDER_OPERATION: crashed },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (const deadline = Date.now() + 120_000; !/held|busy/.test(output); await sleep(50)) {
      assert.ok(Date.now() < deadline && child.exitCode === null, `the holder process holds the card: ${output}`);
    }
    assert.match(output, /held/);
    assert.equal(await holder(card), crashed);
    // While it lives it renews.
    await nextRenewal(card, (await takenMs(card))!);
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
  const lastRenewal = (await takenMs(card))!;
  if (Date.now() - lastRenewal < CARD_CLAIM_LEASE_MS / 2) {
    assert.equal((await takeCardClaims(claims(), [card], `op:${randomUUID()}`)).length, 0, 'within the lease of its last renewal');
  }
  const next = `op:${randomUUID()}`;
  for (const deadline = Date.now() + 60_000; ; await sleep(100)) {
    assert.ok(Date.now() < deadline, 'taken over within a minute of the crash');
    if ((await takeCardClaims(claims(), [card], next)).length === 1) break;
  }
  assert.equal(await holder(card), next);
  // The taker stamped the claim with the time it took it over: more than a lease after the last renewal.
  assert.ok((await takenMs(card))! - lastRenewal > CARD_CLAIM_LEASE_MS, 'not before the lease ran out');
});
