import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { ethers } from 'ethers';
import { parseEther, type Address } from 'viem';
import { sha256Hex } from './custody/passwords.ts';
import { buildApprovedPartner, buildUser } from './testing/factories.ts';
import { describeRefusals, fundAccount, openRaceTarget, RACERS, runRace, settledNonce, type RaceAnswer, type RaceMethod, type RaceTarget } from './testing/race-target.ts';
import { buildMintPayload } from './cards/testing/card-factories.ts';

/**
 * Identical state-changing calls at once on one resource, beside the card races of
 * cards/claims/race.test.ts and the mint races of cards/mint/race.test.ts: exactly the expected
 * winners, the others refused with a registry code (never a 5xx), nothing done twice, and a signer's
 * nonce up by exactly the winners' transactions. One app on SQLite; three instances on PostgreSQL
 * (testing/race-target.ts).
 */
/** B1 prepares one client address may make in the window of the prepare race: fewer than RACERS. */
const PREPARE_LIMIT = 4;

let target: RaceTarget;
const timeout = 300_000;

after(async () => {
  await target?.close();
});

/** A fresh client address per call outside the prepare race, so only that race meets the prepare limit. */
let addressCount = 0;
function otherClient(): Record<string, string> {
  addressCount++;
  return { 'x-forwarded-for': `198.51.${Math.floor(addressCount / 250)}.${(addressCount % 250) + 1}` };
}

type Member = { token: string; pinHash: string; address: Address; userId: string; keyId: string; email: string; passwordHash: string };

/** A member signed in with a bearer session (over the first instance). */
async function signedInMember(options: { coins?: boolean } = {}): Promise<Member> {
  const built = await buildUser(target.services);
  if (options.coins) await fundAccount(target.services, built.user.main_address);
  const session = await target.call(0, 'POST', '/v2/wallet-app/sessions', { email: built.user.email, password: sha256Hex(built.password) }, otherClient());
  assert.equal(session.status, 200, session.text);
  return {
    token: `Bearer ${session.json.session_token}`,
    pinHash: built.pinHash,
    address: built.user.main_address.toLowerCase() as Address,
    userId: built.user.id,
    keyId: built.user.key_id,
    email: built.user.email,
    passwordHash: sha256Hex(built.password),
  };
}

function asMember(member: Member, index: number, method: RaceMethod, path: string, body?: object): Promise<RaceAnswer> {
  return target.call(index, method, path, body, { authorization: member.token, 'x-wallet-app': '1', ...otherClient() });
}

async function prepareKey(body: object): Promise<string> {
  const prepared = await target.call(0, 'POST', '/v2/a2a/prepare', body, otherClient());
  assert.equal(prepared.status, 200, prepared.text);
  return prepared.json.request_key as string;
}

/** Polls B3 until the request is final. */
async function finalResult(requestKey: string): Promise<Record<string, any>> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const body = (await target.call(0, 'GET', `/v2/a2a/result?request_key=${requestKey}`, undefined, otherClient())).json;
    if (body.status !== 'completed' || body.result?.status !== 'pending') return body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`request ${requestKey} did not finish`);
}

type Partner = { id: string; token: string; email: string; pinHash: string; passwordHash: string; keyId: string; contract: Address; own: Address };

async function approvedPartner() {
  const built = await buildApprovedPartner(target.services);
  await fundAccount(target.services, built.partner.main_address);
  return built;
}

async function signedIn(built: Awaited<ReturnType<typeof approvedPartner>>): Promise<Partner> {
  const signIn = await target.call(0, 'POST', '/v2/partner/auth', { email: built.partner.email, password: built.passwordHash });
  assert.equal(signIn.status, 200, signIn.text);
  return {
    id: built.partner.id,
    token: signIn.json.access_token,
    email: built.partner.email,
    pinHash: built.pinHash,
    passwordHash: built.passwordHash,
    keyId: built.partner.key_id,
    contract: built.contractAddress.toLowerCase() as Address,
    own: built.partner.main_address.toLowerCase() as Address,
  };
}

function asPartner(partner: Partner, index: number, method: RaceMethod, path: string, body?: object): Promise<RaceAnswer> {
  return target.call(index, method, path, body, { authorization: partner.token });
}

async function pinFailures(keyId: string): Promise<number> {
  const row = await target.services.store.db.selectFrom('signing_keys').select('pin_failures').where('id', '=', keyId).executeTakeFirstOrThrow();
  return Number(row.pin_failures);
}

// Setup that sends transactions from this process (partners' contracts) is done before the instances start.
let partners: Partner[];
let escrowed: { partner: Partner; claimLink: string };
before(async () => {
  target = await openRaceTarget({ config: { http: { rateLimits: { prepare: { max: PREPARE_LIMIT, timeWindowMs: 3_600_000, acrossInstances: true } } } } });
  const built = [];
  for (let index = 0; index < 4; index++) built.push(await approvedPartner());
  await target.start();
  partners = [];
  for (const partner of built) partners.push(await signedIn(partner));
  // A card in escrow for the claim race.
  const partner = partners[3]!;
  const minted = await asPartner(partner, 0, 'POST', '/v2/wallet/mint', buildMintPayload({ pinHash: partner.pinHash, contractAddress: partner.contract }, { to_address: [partner.own] }));
  assert.equal(minted.status, 200, minted.text);
  assert.equal((await asPartner(partner, 0, 'POST', '/v2/escrow/approve', { pin: partner.pinHash, contract_address: partner.contract })).status, 200);
  const deposited = await asPartner(partner, 0, 'POST', '/v2/escrow', { pin: partner.pinHash, card_ids: [Number(minted.json.card_ids[0])], contract_address: partner.contract });
  assert.equal(deposited.status, 200, deposited.text);
  escrowed = { partner, claimLink: deposited.json.claim_links[0] as string };
});

function report(context: { diagnostic(message: string): void }, route: string, winners: number, refusedCodes: number[]): void {
  context.diagnostic(`${route}: ${RACERS} calls on ${target.instances} instance(s) (${target.store}): ${winners} won, refused ${describeRefusals(refusedCodes)}, 0 5xx`);
}

test('App2App send_coin approved ten times at once: one transaction, the others refused', { timeout }, async (context) => {
  const member = await signedInMember({ coins: true });
  const recipient = ethers.Wallet.createRandom().address.toLowerCase() as Address;
  const key = await prepareKey({ bapp: { name: 'Race' }, type: 'send_coin', transaction: { from: member.address, to: recipient, amount: '0.5' } });
  assert.equal((await asMember(member, 0, 'POST', `/v2/wallet-app/a2a/requests/${key}/open`)).status, 200);
  const nonceBefore = await settledNonce(target.services, member.address);
  const { winners, refusedCodes, all } = await runRace((index) => asMember(member, index, 'POST', `/v2/wallet-app/a2a/requests/${key}/approve`, { pin: member.pinHash }));
  assert.equal(winners.length, 1, all);
  assert.equal((await finalResult(key)).result.status, 'success');
  assert.equal((await settledNonce(target.services, member.address)) - nonceBefore, 1, 'one transaction signed');
  assert.equal(await target.services.chains.get('main').client.getBalance({ address: recipient }), parseEther('0.5'), 'the coins moved once');
  report(context, 'App2App approve (send_coin)', winners.length, refusedCodes);
});

test('an App2App request cancelled ten times at once: one cancel, the others refused', { timeout }, async (context) => {
  const member = await signedInMember();
  const key = await prepareKey({ bapp: { name: 'Race' }, type: 'auth' });
  assert.equal((await asMember(member, 0, 'POST', `/v2/wallet-app/a2a/requests/${key}/open`)).status, 200);
  const { winners, refusedCodes, all } = await runRace((index) => asMember(member, index, 'POST', `/v2/wallet-app/a2a/requests/${key}/cancel`));
  assert.equal(winners.length, 1, all);
  assert.deepEqual([...new Set(refusedCodes)], [6011], 'invalid request status');
  assert.equal((await finalResult(key)).status, 'canceled');
  report(context, 'App2App cancel', winners.length, refusedCodes);
});

test('ten identical wallet-app sign-ups at once: one member, the others refused', { timeout }, async (context) => {
  const body = {
    name: `Racer ${randomUUID().slice(0, 8).replace(/\d/g, 'x')}`,
    phone: `+1 415 555 ${String(1000 + Math.floor(Math.random() * 8999))}`,
    email: `racer-${randomUUID()}@example.com`,
    password: sha256Hex('a long password'),
    birth: '1990-05-17',
    pin: sha256Hex('246810'),
  };
  const { winners, refusedCodes, all } = await runRace((index) => target.call(index, 'POST', '/v2/wallet-app/members', body, { 'x-wallet-app': '1', ...otherClient() }));
  assert.equal(winners.length, 1, all);
  const members = await target.services.store.db.selectFrom('users').select('id').where('email', '=', body.email).execute();
  assert.equal(members.length, 1, 'one member kept');
  report(context, 'wallet-app sign-up', winners.length, refusedCodes);
});

test('B1 prepare from one client address ten times at once past its limit: the limit holds exactly, 429 for the rest, one row per accepted call', { timeout }, async (context) => {
  const bapp = { name: `Race ${randomUUID().slice(0, 8)}` };
  const { winners, refusedCodes, all } = await runRace((index) => target.call(index, 'POST', '/v2/a2a/prepare', { bapp, type: 'auth' }, { 'x-forwarded-for': '203.0.113.77' }));
  assert.equal(winners.length, PREPARE_LIMIT, `exactly the limit:\n${all}`);
  assert.deepEqual([...new Set(refusedCodes)], [429], all);
  const stored = await target.services.store.db.selectFrom('a2a_requests').select('request_key').where('bapp_name', '=', bapp.name).execute();
  assert.deepEqual(stored.map((row) => row.request_key).sort(), winners.map((answer) => answer.json.request_key as string).sort(), 'stored: exactly the accepted requests');
  report(context, 'B1 prepare', winners.length, refusedCodes);
});

test('A2: ten identical password changes at once: one change, the others refused', { timeout }, async (context) => {
  const partner = partners[0]!;
  const newPasswordHash = sha256Hex(`a new password ${randomUUID()}`);
  const { winners, refusedCodes, all } = await runRace((index) => asPartner(partner, index, 'PUT', '/v2/partner/?opt=password', { old_password: partner.passwordHash, new_password: newPasswordHash }));
  assert.equal(winners.length, 1, all);
  for (const code of refusedCodes) assert.ok([4004, 4008, 4044].includes(code), `wrong old password, back-off, or the token the change ended:\n${all}`);
  assert.equal((await target.call(0, 'POST', '/v2/partner/auth', { email: partner.email, password: newPasswordHash })).status, 200, 'the new password signs in');
  report(context, 'A2 password change', winners.length, refusedCodes);
});

test('A3: ten identical PIN changes at once: one change; the repeats do not lock the key', { timeout }, async (context) => {
  const partner = partners[1]!;
  const newPinHash = sha256Hex('591827');
  const { winners, refusedCodes, all } = await runRace((index) => asPartner(partner, index, 'PUT', '/v2/partner/pin', { old_pin: partner.pinHash, new_pin: newPinHash }));
  assert.equal(winners.length, 1, all);
  assert.deepEqual([...new Set(refusedCodes)], [4006], `the others: the PIN was changed at the same time:\n${all}`);
  assert.equal(await pinFailures(partner.keyId), 0, 'no wrong PIN counted');
  const nonceBefore = await settledNonce(target.services, partner.own);
  const minted = await asPartner(partner, 0, 'POST', '/v2/wallet/mint', buildMintPayload({ pinHash: newPinHash, contractAddress: partner.contract }));
  assert.equal(minted.status, 200, `the new PIN signs: ${minted.text}`);
  assert.equal((await settledNonce(target.services, partner.own)) - nonceBefore, 1);
  report(context, 'A3 PIN change', winners.length, refusedCodes);
});

test('webhook endpoint create ten times at once with room for two: the per-partner limit holds exactly', { timeout }, async (context) => {
  const partner = partners[2]!;
  const body = { url: 'https://hooks.example.com/cards', events: ['card.minted'] };
  for (let index = 0; index < 8; index++) assert.equal((await asPartner(partner, 0, 'POST', '/v2/partner/webhooks', body)).status, 200);
  const { winners, refusedCodes, all } = await runRace((index) => asPartner(partner, index, 'POST', '/v2/partner/webhooks', body));
  assert.equal(winners.length, 2, `exactly the room left:\n${all}`);
  assert.deepEqual([...new Set(refusedCodes)], [400], all);
  const live = await target.services.store.db.selectFrom('webhook_endpoints').select('id').where('partner_id', '=', partner.id).where('deleted_at_ms', 'is', null).execute();
  assert.equal(live.length, 10, 'at most ten endpoints');
  report(context, 'webhook endpoint create', winners.length, refusedCodes);
});

test('wallet-app PIN change ten times at once: one change; the repeats do not lock the key', { timeout }, async (context) => {
  const member = await signedInMember();
  const newPinHash = sha256Hex('730519');
  const { winners, refusedCodes, all } = await runRace((index) => asMember(member, index, 'PUT', '/v2/wallet-app/me/pin', { old_pin: member.pinHash, new_pin: newPinHash }));
  assert.equal(winners.length, 1, all);
  assert.deepEqual([...new Set(refusedCodes)], [4006], `the others: the PIN was changed at the same time:\n${all}`);
  assert.equal(await pinFailures(member.keyId), 0, 'no wrong PIN counted');
  await target.services.vault.unlock(member.keyId, newPinHash);
  report(context, 'wallet-app PIN change', winners.length, refusedCodes);
});

test('wallet-app: ten sign-outs of another session at once: one, the others 404', { timeout }, async (context) => {
  const member = await signedInMember();
  // A second session of the same member (another device), ended from the first.
  const second = await target.call(0, 'POST', '/v2/wallet-app/sessions', { email: member.email, password: member.passwordHash }, otherClient());
  assert.equal(second.status, 200, second.text);
  const listed = await target.call(0, 'GET', '/v2/wallet-app/sessions', undefined, { authorization: `Bearer ${second.json.session_token}` });
  const secondId = (listed.json.sessions as Array<{ id: string; current: boolean }>).find((session) => session.current)!.id;
  const { winners, refusedCodes, all } = await runRace((index) => asMember(member, index, 'DELETE', `/v2/wallet-app/sessions/${secondId}`));
  assert.equal(winners.length, 1, all);
  assert.deepEqual([...new Set(refusedCodes)], [404], `no such live session:\n${all}`);
  assert.equal((await target.call(0, 'GET', '/v2/wallet-app/sessions', undefined, { authorization: `Bearer ${second.json.session_token}` })).json.code, 402, 'the second session is ended');
  assert.equal((await asMember(member, 0, 'GET', '/v2/wallet-app/sessions')).status, 200, 'the first lives on');
  report(context, 'wallet-app session revoke', winners.length, refusedCodes);
});

test('wallet-app: sign-out everywhere ten times at once: the sessions end once', { timeout }, async (context) => {
  const member = await signedInMember();
  for (let index = 0; index < 2; index++) {
    assert.equal((await target.call(0, 'POST', '/v2/wallet-app/sessions', { email: member.email, password: member.passwordHash }, otherClient())).status, 200);
  }
  const { winners, refusedCodes, all } = await runRace((index) => asMember(member, index, 'DELETE', '/v2/wallet-app/sessions'));
  const ended = winners.reduce((sum, answer) => sum + Number(answer.json.signed_out), 0);
  assert.equal(ended, 3, `three sessions ended, each once:\n${all}`);
  assert.equal(winners.filter((answer) => Number(answer.json.signed_out) > 0).length, 1, `one call ended them:\n${all}`);
  assert.deepEqual([...new Set(refusedCodes)].filter((code) => code !== 402), [], `a late call finds its session ended (402):\n${all}`);
  report(context, 'wallet-app sign-out everywhere', winners.filter((answer) => Number(answer.json.signed_out) > 0).length, refusedCodes);
});

test('wallet-app faucet ten times at once: one send on an embedded chain (none on an external one)', { timeout }, async (context) => {
  const member = await signedInMember();
  const embedded = target.services.chains.get('main').managed;
  const operator = target.services.operator.address as Address;
  const nonceBefore = await settledNonce(target.services, operator);
  const { winners, refusedCodes, all } = await runRace((index) => asMember(member, index, 'POST', '/v2/wallet-app/faucet', { chain: 'main' }));
  assert.equal(winners.length, embedded ? 1 : 0, all);
  assert.deepEqual([...new Set(refusedCodes)], [embedded ? 429 : 6417], all);
  assert.equal((await settledNonce(target.services, operator)) - nonceBefore, winners.length, 'one transaction per winner');
  report(context, `wallet-app faucet (${embedded ? 'embedded' : 'external'} chain)`, winners.length, refusedCodes);
});

test('an escrow claim link claimed ten times at once by two members: one claim transaction, one member', { timeout }, async (context) => {
  const [a, b] = [await signedInMember(), await signedInMember()];
  const link = new URL(escrowed.claimLink);
  const claimId = link.pathname.split('/').pop()!;
  const secret = `0x${link.hash.slice(1)}`;
  const operator = target.services.operator.address as Address;
  const nonceBefore = await settledNonce(target.services, operator);
  const { winners, refusedCodes, all } = await runRace((index) => asMember(index % 2 === 0 ? a : b, index, 'POST', `/v2/wallet-app/claims/${claimId}/claim`, { secret }));
  assert.equal(new Set(winners.map((answer) => answer.json.tx_hash)).size, 1, `one claim transaction:\n${all}`);
  assert.equal(new Set(winners.map((answer) => answer.json.claimed_to)).size, 1, `one member:\n${all}`);
  for (const code of refusedCodes) assert.ok([4205, 4209].includes(code), all);
  assert.ok(refusedCodes.filter((code) => code === 4205).length >= RACERS / 2, `the other member's calls all 4205:\n${all}`);
  assert.equal((await settledNonce(target.services, operator)) - nonceBefore, 1, 'one transaction signed');
  const receipt = await target.services.chains.get('main').client.getTransactionReceipt({ hash: winners[0]!.json.tx_hash });
  assert.equal(receipt.status, 'success');
  report(context, 'wallet-app escrow claim', winners.length, refusedCodes);
});

test('App2App: one request opened ten times at once by two members: opened once, still for one approval', { timeout }, async (context) => {
  const [a, b] = [await signedInMember(), await signedInMember()];
  const key = await prepareKey({ bapp: { name: 'Race' }, type: 'auth' });
  // Opening only shows the request (a link may be opened on several devices until one approves);
  // the approval is what binds it, once (the approval races above).
  const { winners, refusedCodes, all } = await runRace((index) => asMember(index % 2 === 0 ? a : b, index, 'POST', `/v2/wallet-app/a2a/requests/${key}/open`));
  assert.equal(winners.length, RACERS, all);
  const opened = await target.services.store.db.selectFrom('a2a_requests').select(['status', 'user_id']).where('request_key', '=', key).executeTakeFirstOrThrow();
  assert.equal(opened.status, 'requested');
  assert.ok([a.userId, b.userId].includes(opened.user_id!));
  report(context, 'App2App open', winners.length, refusedCodes);
});

test('invite of one person ten times at once: one invite, the others 4113', { timeout }, async (context) => {
  const partner = partners[2]!;
  const person = [`Guest ${randomUUID().slice(0, 6).replace(/\d/g, 'x')}`, `+1 415 555 ${String(1000 + Math.floor(Math.random() * 8999))}`];
  const { winners, refusedCodes, all } = await runRace((index) => asPartner(partner, index, 'POST', '/v2/wallet/invite', { to_person: [person] }));
  assert.equal(winners.length, 1, all);
  assert.deepEqual([...new Set(refusedCodes)], [4113], `sender already sent invite message to receiver:\n${all}`);
  const invites = await target.services.store.db.selectFrom('person_invites').select('id').where('partner_id', '=', partner.id).where('name', '=', person[0]!).execute();
  assert.equal(invites.length, 1, 'one invite kept');
  report(context, 'invite', winners.length, refusedCodes);
});

test('A15 escrow approval ten times at once under one Idempotency-Key: one transaction, ten identical answers', { timeout }, async (context) => {
  const partner = partners[2]!;
  const key = randomUUID();
  const nonceBefore = await settledNonce(target.services, partner.own);
  const { winners, all } = await runRace((index) =>
    target.call(index, 'POST', '/v2/escrow/approve', { pin: partner.pinHash, contract_address: partner.contract }, { authorization: partner.token, 'idempotency-key': key }),
  );
  assert.equal(winners.length, RACERS, all);
  assert.equal(new Set(winners.map((answer) => answer.text)).size, 1, `the same answer:\n${all}`);
  assert.equal((await settledNonce(target.services, partner.own)) - nonceBefore, 1, 'one transaction signed');
  assert.equal((await target.services.chains.get('main').client.getTransactionReceipt({ hash: winners[0]!.json.tx_hash })).status, 'success');
  report(context, 'A15 escrow approve (one Idempotency-Key)', 1, []);
});

test('webhook endpoint deleted ten times at once: one delete, the others 404', { timeout }, async (context) => {
  const fresh = partners[3]!;
  const created = await asPartner(fresh, 0, 'POST', '/v2/partner/webhooks', { url: 'https://hooks.example.com/cards', events: ['card.minted'] });
  assert.equal(created.status, 200, created.text);
  const { winners, refusedCodes, all } = await runRace((index) => asPartner(fresh, index, 'DELETE', `/v2/partner/webhooks/${created.json.id}`));
  assert.equal(winners.length, 1, all);
  assert.deepEqual([...new Set(refusedCodes)], [404], all);
  report(context, 'webhook endpoint delete', winners.length, refusedCodes);
});

test('wallet-app sign-out ten times at once: the session ends once, the others find it ended (402)', { timeout }, async (context) => {
  const member = await signedInMember();
  const { winners, refusedCodes, all } = await runRace((index) => asMember(member, index, 'DELETE', '/v2/wallet-app/sessions/current'));
  assert.equal(winners.length, 1, all);
  assert.deepEqual([...new Set(refusedCodes)], [402], all);
  assert.equal((await asMember(member, 0, 'GET', '/v2/wallet-app/sessions')).json.code, 402, 'signed out');
  report(context, 'wallet-app sign-out', winners.length, refusedCodes);
});
