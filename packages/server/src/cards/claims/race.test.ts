/**
 * The race suite of one operation per card (cards/claims): for every route that moves, burns,
 * escrows or cancels a card, RACERS identical calls at once on one card. Exactly one wins; the
 * others are refused with 4209 (409), or, arriving after the winner finished, with the code the
 * moved card gets (4201, 4204, 404, 6414); nothing answers 5xx, no body carries raw revert data,
 * and the signer's nonce moved by exactly one: no transaction was signed for a loser, none reverted.
 *
 * On SQLite the calls go to one in-process app. With WALLET_TEST_STORE=postgres and
 * TEST_DATABASE_URL they go, in turn, to three `wallet-service serve` instances sharing one
 * PostgreSQL schema and one chain node, so the claim must hold across processes.
 */
import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import { cardNftAbi } from '@wallet-service/contracts';
import type { Address } from 'viem';
import { sha256Hex } from '../../custody/passwords.ts';
import { buildApprovedPartner, buildUser } from '../../testing/factories.ts';
import { codeOf, fundAccount, openRaceTarget, RACERS, settledNonce as settledNonceOf, type RaceAnswer as Answer, type RaceTarget } from '../../testing/race-target.ts';
import { buildAddresses, buildMintPayload } from '../testing/card-factories.ts';

const onPostgres = process.env.WALLET_TEST_STORE === 'postgres' && Boolean(process.env.TEST_DATABASE_URL);

let target: RaceTarget;
const client = () => target.services.chains.get('main').client;

let partner: { token: string; pinHash: string; nftId: number; contract: Address; own: Address };
let member: { auth: string; pinHash: string; address: Address; name: string; phone: string };
/** The partner's cards minted to itself, one per race, and the member's two. */
let partnerCards: number[];
let memberCards: number[];

before(async () => {
  target = await openRaceTarget();
  const { services } = target;
  const built = await buildApprovedPartner(services, { mintLimit: 1_000 });
  await fundAccount(services, built.partner.main_address);
  const user = await buildUser(services);
  await fundAccount(services, user.user.main_address);
  await target.start();

  const signIn = await target.call(0, 'POST', '/v2/partner/auth', { email: built.partner.email, password: built.passwordHash });
  assert.equal(signIn.status, 200, signIn.text);
  const own = built.partner.main_address.toLowerCase() as Address;
  partner = { token: signIn.json.access_token, pinHash: built.pinHash, nftId: Number(built.nftId), contract: built.contractAddress.toLowerCase() as Address, own };
  const session = await target.call(0, 'POST', '/v2/wallet-app/sessions', { email: user.user.email, password: sha256Hex(user.password) });
  assert.equal(session.status, 200, session.text);
  member = { auth: `Bearer ${session.json.session_token}`, pinHash: user.pinHash, address: user.user.main_address.toLowerCase() as Address, name: user.user.name, phone: user.user.phone };

  // One mint for every race: five cards to the partner itself, two to the member.
  const minted = await asPartner(0, 'POST', '/v2/wallet/mint', buildMintPayload({ pinHash: partner.pinHash, contractAddress: partner.contract }, { to_address: [own, own, own, own, own, member.address, member.address] }));
  assert.equal(minted.status, 200, minted.text);
  const ids = (minted.json.card_ids as number[]).map(Number);
  partnerCards = ids.slice(0, 5);
  memberCards = ids.slice(5);
  const approved = await asPartner(0, 'POST', '/v2/escrow/approve', { pin: partner.pinHash, contract_address: partner.contract });
  assert.equal(approved.status, 200, approved.text);
});
after(async () => {
  await target?.close();
});

function asPartner(index: number, method: 'GET' | 'POST' | 'DELETE', path: string, body?: object): Promise<Answer> {
  return target.call(index, method, path, body, { authorization: partner.token });
}

function asMember(index: number, method: 'GET' | 'POST', path: string, body?: object): Promise<Answer> {
  return target.call(index, method, path, body, { authorization: member.auth });
}

async function ownerOf(cardId: number): Promise<string | undefined> {
  try {
    return (await client().readContract({ address: partner.contract, abi: cardNftAbi, functionName: 'ownerOf', args: [BigInt(cardId)] })).toLowerCase();
  } catch {
    return undefined;
  }
}

async function escrowAddress(): Promise<string> {
  return (await client().readContract({ address: partner.contract, abi: cardNftAbi, functionName: 'escrow' })).toLowerCase();
}

/** The account's nonce once every transaction it signed is mined (none is left pending). */
function settledNonce(account: Address): Promise<number> {
  return settledNonceOf(target.services, account);
}

/**
 * Fires `call` RACERS times at once (spread over the instances) and checks the race: one winner, the
 * rest 4209 or one of `lateCodes`, no 5xx, no raw revert data, the signer's nonce up by exactly one.
 */
async function race(options: { context: TestContext; signer: Address; call: (index: number) => Promise<Answer>; won: (answer: Answer) => boolean; lateCodes: number[] }): Promise<Answer> {
  const before = await settledNonce(options.signer);
  const answers = await Promise.all(Array.from({ length: RACERS }, (_, index) => options.call(index)));
  const all = answers.map((answer) => `${answer.status} ${answer.text}`).join('\n');
  for (const answer of answers) {
    assert.ok(answer.status < 500, `no 5xx:\n${all}`);
    assert.ok(!answer.text.includes('\\u0000') && !answer.text.includes('\u0000'), `no NUL characters:\n${all}`);
    assert.doesNotMatch(answer.text, /0x[0-9a-f]{72,}/i, 'no raw revert data');
  }
  const winners = answers.filter(options.won);
  assert.equal(winners.length, 1, `exactly one winner:\n${all}`);
  let busy = 0;
  for (const answer of answers.filter((answer) => !options.won(answer))) {
    const code = codeOf(answer);
    if (code === 4209) {
      assert.equal(answer.status, 409, answer.text);
      busy++;
    } else {
      assert.ok(code !== undefined && options.lateCodes.includes(code), `a loser answers 4209 or ${options.lateCodes.join('/')}:\n${all}`);
    }
  }
  assert.equal((await settledNonce(options.signer)) - before, 1, 'one transaction signed, by the winner');
  options.context.diagnostic(`${RACERS} racers: 1 won, ${busy} refused 4209, ${RACERS - 1 - busy} refused after the winner`);
  return winners[0]!;
}

async function assertMined(txHash: string): Promise<void> {
  const receipt = await client().waitForTransactionReceipt({ hash: txHash as `0x${string}` });
  assert.equal(receipt.status, 'success');
}

const timeout = onPostgres ? 300_000 : 120_000;

test('A10: ten sends of one card at once, one transfer', { timeout }, async (context) => {
  const cardId = partnerCards[0]!;
  const winner = await race({
    context,
    signer: partner.own,
    call: (index) => asPartner(index, 'POST', `/v2/wallet/nft/${partner.nftId}/${cardId}/send`, { pin: partner.pinHash, card_name: 'Gold', to_address: member.address }),
    won: (answer) => answer.status === 200,
    lateCodes: [4201],
  });
  await assertMined(winner.json.hash);
  assert.equal(await ownerOf(cardId), member.address);
});

test('A11: ten sends of one card to a person at once, one transfer', { timeout }, async (context) => {
  const cardId = partnerCards[1]!;
  const winner = await race({
    context,
    signer: partner.own,
    call: (index) => asPartner(index, 'POST', `/v2/wallet/nft/${partner.nftId}/${cardId}/send/person`, { pin: partner.pinHash, card_name: 'Gold', to_person: [member.name, member.phone] }),
    won: (answer) => answer.status === 200,
    lateCodes: [4201],
  });
  await assertMined(winner.json.hash);
  assert.equal(await ownerOf(cardId), member.address);
});

test('A14: ten burns of one card at once, one burn', { timeout }, async (context) => {
  const cardId = partnerCards[2]!;
  const winner = await race({
    context,
    signer: partner.own,
    call: (index) => asPartner(index, 'DELETE', '/v2/wallet/nft', { pin: partner.pinHash, card_id: cardId, contract_address: partner.contract }),
    won: (answer) => answer.status === 200,
    lateCodes: [404, 4201],
  });
  await assertMined(winner.json.hash);
  assert.equal(await ownerOf(cardId), undefined, 'burned');
});

test('A17: ten deposits of one card at once, one deposit with one link', { timeout }, async (context) => {
  const cardId = partnerCards[3]!;
  const winner = await race({
    context,
    signer: partner.own,
    call: (index) => asPartner(index, 'POST', '/v2/escrow', { pin: partner.pinHash, card_ids: [cardId], contract_address: partner.contract }),
    won: (answer) => answer.status === 200,
    lateCodes: [4201],
  });
  assert.equal(winner.json.claim_links.length, 1);
  assert.equal(winner.json.fail_count, 0);
  await assertMined(winner.json.tx_hash);
  assert.equal(await ownerOf(cardId), await escrowAddress());
});

test('A19: ten cancels of one escrowed card at once, one cancel', { timeout }, async (context) => {
  const cardId = partnerCards[4]!;
  const deposited = await asPartner(0, 'POST', '/v2/escrow', { pin: partner.pinHash, card_ids: [cardId], contract_address: partner.contract });
  assert.equal(deposited.status, 200, deposited.text);
  assert.equal(deposited.json.claim_links.length, 1);
  const winner = await race({
    context,
    signer: partner.own,
    call: (index) => asPartner(index, 'DELETE', '/v2/escrow', { pin: partner.pinHash, card_ids: [cardId], contract_address: partner.contract }),
    won: (answer) => answer.status === 200,
    lateCodes: [4204],
  });
  assert.equal(winner.json.fail_count, 0);
  await assertMined(winner.json.tx_hash);
  assert.equal(await ownerOf(cardId), partner.own);
});

test("the wallet app: ten sends of one of the member's cards at once, one transfer", { timeout }, async (context) => {
  const cardId = memberCards[0]!;
  const [recipient] = buildAddresses(1) as [Address];
  const winner = await race({
    context,
    signer: member.address,
    call: (index) => asMember(index, 'POST', `/v2/wallet-app/cards/${partner.nftId}/${cardId}/send`, { pin: member.pinHash, to_address: recipient }),
    won: (answer) => answer.status === 200,
    // After the winner the member no longer holds it: the holder's view answers 404.
    lateCodes: [404],
  });
  await assertMined(winner.json.hash);
  assert.equal(await ownerOf(cardId), recipient);
});

test('App2App: ten send_card requests for one card approved at once, one transfer', { timeout }, async (context) => {
  const cardId = memberCards[1]!;
  const [recipient] = buildAddresses(1) as [Address];
  const keys: string[] = [];
  for (let index = 0; index < RACERS; index++) {
    const prepared = await target.call(index, 'POST', '/v2/a2a/prepare', { bapp: { name: 'Race' }, type: 'send_card', transaction: { contract: partner.contract, to: recipient, card_id: String(cardId) } });
    assert.equal(prepared.status, 200, prepared.text);
    keys.push(prepared.json.request_key);
  }
  const winner = await race({
    context,
    signer: member.address,
    call: (index) => asMember(index, 'POST', `/v2/wallet-app/a2a/requests/${keys[index]}/approve`, { pin: member.pinHash }),
    won: (answer) => answer.status === 200 && answer.json.status === 'completed',
    // An approval after the winner's transfer was mined: the simulation refuses it, named.
    lateCodes: [6414],
  });
  await assertMined(winner.json.result.tx_hash);
  assert.equal(await ownerOf(cardId), recipient);
  // A refused approval left its request open (4209) or finished it in error (6414): none completed.
  const finished = await Promise.all(keys.map((key) => target.call(0, 'GET', `/v2/a2a/result?request_key=${key}`)));
  assert.equal(finished.filter((answer) => answer.json.status === 'completed').length, 1);
});
