/**
 * A7 under many callers at once (testing/race-target.ts: one app on SQLite, three instances on
 * PostgreSQL): the same Idempotency-Key ten times mints once and answers the same; a partner near its
 * monthly limit gets exactly the cards the limit allows, the other calls refused with 4080 before
 * anything is signed.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Address } from 'viem';
import { buildApprovedPartner, buildPhone } from '../../testing/factories.ts';
import { describeRefusals, fundAccount, openRaceTarget, RACERS, runRace, settledNonce, type RaceTarget } from '../../testing/race-target.ts';
import { buildAddresses, buildMintPayload } from '../testing/card-factories.ts';

type Partner = { id: string; token: string; pinHash: string; contract: Address; own: Address };

let target: RaceTarget;
let keyed: Partner;
let limited: Partner;
/** The limited partner's monthly limit: fewer than RACERS one-card mints fit. */
const MINT_LIMIT = 3;

async function approvedPartner(mintLimit: number): Promise<Omit<Partner, 'token'> & { email: string; passwordHash: string }> {
  const built = await buildApprovedPartner(target.services, { mintLimit });
  await fundAccount(target.services, built.partner.main_address);
  return { id: built.partner.id, email: built.partner.email, passwordHash: built.passwordHash, pinHash: built.pinHash, contract: built.contractAddress.toLowerCase() as Address, own: built.partner.main_address.toLowerCase() as Address };
}

async function signedIn(partner: Awaited<ReturnType<typeof approvedPartner>>): Promise<Partner> {
  const signIn = await target.call(0, 'POST', '/v2/partner/auth', { email: partner.email, password: partner.passwordHash });
  assert.equal(signIn.status, 200, signIn.text);
  return { id: partner.id, token: signIn.json.access_token, pinHash: partner.pinHash, contract: partner.contract, own: partner.own };
}

before(async () => {
  target = await openRaceTarget();
  const first = await approvedPartner(1_000);
  const second = await approvedPartner(MINT_LIMIT);
  await target.start();
  keyed = await signedIn(first);
  limited = await signedIn(second);
});
after(async () => {
  await target?.close();
});

test('A7: ten calls at once with one Idempotency-Key mint one batch and all answer the same', { timeout: 300_000 }, async (context) => {
  const key = randomUUID();
  const payload = buildMintPayload({ pinHash: keyed.pinHash, contractAddress: keyed.contract }, { to_address: buildAddresses(3) });
  const nonceBefore = await settledNonce(target.services, keyed.own);
  const { winners, all } = await runRace((index) => target.call(index, 'POST', '/v2/wallet/mint', payload, { authorization: keyed.token, 'idempotency-key': key }));
  assert.equal(winners.length, RACERS, `every call answers the one mint:\n${all}`);
  assert.equal(new Set(winners.map((answer) => answer.text)).size, 1, `the same answer:\n${all}`);
  assert.equal(winners[0]!.json.card_ids.length, 3);

  const db = target.services.store.db;
  const designs = await db.selectFrom('card_designs').select('id').where('partner_id', '=', keyed.id).where('idempotency_key', '=', key).execute();
  assert.equal(designs.length, 1, 'one design stored');
  const batches = await db.selectFrom('card_mint_batches').select(['status', 'tx_hash']).where('design_id', '=', designs[0]!.id).execute();
  assert.deepEqual(batches.map((batch) => batch.status), ['minted'], 'one batch, mined');
  assert.equal((await settledNonce(target.services, keyed.own)) - nonceBefore, 1, 'one transaction signed');
  const receipt = await target.services.chains.get('main').client.getTransactionReceipt({ hash: batches[0]!.tx_hash as `0x${string}` });
  assert.equal(receipt.status, 'success');
  context.diagnostic(`A7 same key: ${RACERS} calls on ${target.instances} instance(s) (${target.store}): 1 mint, ${RACERS} identical answers`);
});

test('A7: ten one-card mints at once by a partner with room for three: three minted, seven refused 4080, nothing signed for them', { timeout: 300_000 }, async (context) => {
  const payload = buildMintPayload({ pinHash: limited.pinHash, contractAddress: limited.contract });
  const nonceBefore = await settledNonce(target.services, limited.own);
  const { winners, refusedCodes, all } = await runRace((index) => target.call(index, 'POST', '/v2/wallet/mint', payload, { authorization: limited.token }));
  assert.equal(winners.length, MINT_LIMIT, `exactly the allowed mints:\n${all}`);
  assert.deepEqual([...new Set(refusedCodes)], [4080], `the others 4080:\n${all}`);
  assert.equal((await settledNonce(target.services, limited.own)) - nonceBefore, MINT_LIMIT, 'one transaction per winner, none for a refused call');
  const client = target.services.chains.get('main').client;
  for (const winner of winners) assert.equal((await client.getTransactionReceipt({ hash: winner.json.hash })).status, 'success');
  const partner = await target.services.store.db.selectFrom('partners').select(['mint_count']).where('id', '=', limited.id).executeTakeFirstOrThrow();
  assert.equal(Number(partner.mint_count), MINT_LIMIT);
  const key = await target.services.store.db.selectFrom('signing_keys').select('pin_failures').where('owner_id', '=', limited.id).executeTakeFirstOrThrow();
  assert.equal(Number(key.pin_failures), 0, 'a refused mint costs no PIN attempt');
  context.diagnostic(`A7 near the limit: ${RACERS} calls on ${target.instances} instance(s) (${target.store}): ${winners.length} won, refused ${describeRefusals(refusedCodes)}`);
});

test('A8: ten calls at once with one Idempotency-Key mint one batch to the person, invite once, and all answer the same', { timeout: 300_000 }, async (context) => {
  const key = randomUUID();
  const person = { name: `Newcomer ${randomUUID().slice(0, 6).replace(/\d/g, 'x')}`, phone: buildPhone() };
  const payload = buildMintPayload({ pinHash: keyed.pinHash, contractAddress: keyed.contract }, { to_address: undefined, to_person: [[person.name, person.phone]] });
  const nonceBefore = await settledNonce(target.services, keyed.own);
  const { winners, all } = await runRace((index) => target.call(index, 'POST', '/v2/wallet/mint/person', payload, { authorization: keyed.token, 'idempotency-key': key }));
  assert.equal(winners.length, RACERS, `every call answers the one mint:\n${all}`);
  assert.equal(new Set(winners.map((answer) => answer.text)).size, 1, `the same answer:\n${all}`);
  const db = target.services.store.db;
  const designs = await db.selectFrom('card_designs').select('id').where('partner_id', '=', keyed.id).where('idempotency_key', '=', key).execute();
  assert.equal(designs.length, 1, 'one design stored');
  const batches = await db.selectFrom('card_mint_batches').select('status').where('design_id', '=', designs[0]!.id).execute();
  assert.deepEqual(batches.map((batch) => batch.status), ['minted'], 'one batch, mined');
  assert.equal((await settledNonce(target.services, keyed.own)) - nonceBefore, 1, 'one transaction signed');
  const invites = await db.selectFrom('person_invites').select('id').where('partner_id', '=', keyed.id).where('phone', '=', person.phone).execute();
  assert.equal(invites.length, 1, 'one invite');
  context.diagnostic(`A8 same key: ${RACERS} calls on ${target.instances} instance(s) (${target.store}): 1 mint, 1 invite, ${RACERS} identical answers`);
});
