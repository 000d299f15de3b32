import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cardEscrowAbi, cardNftAbi } from '@wallet-service/contracts';
import { encodeFunctionData, type Address, type Hex } from 'viem';
import { signedInMember, walletApp } from '../a2a/testing/support.ts';
import { buildMintPayload, mintOk, partnerCall } from '../cards/testing/card-factories.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { withoutMessage } from '../testing/responses.ts';
import { operationKey } from '../cards/partner-signing.ts';
import { depositCards } from './commands.ts';
import { openTestApp, type TestApp } from '../testing/test-services.ts';
import { claimLinkParts } from './testing/claim-links.ts';

let t: TestApp;
before(async () => {
  t = await openTestApp();
});
after(async () => {
  await t.cleanup();
});

const client = () => t.services.chains.get('main').client;

async function ownerOf(contract: string, cardId: number): Promise<string> {
  const owner = await client().readContract({ address: contract as Address, abi: cardNftAbi, functionName: 'ownerOf', args: [BigInt(cardId)] });
  return owner.toLowerCase();
}

async function escrowAddress(contract: string): Promise<string> {
  return (await client().readContract({ address: contract as Address, abi: cardNftAbi, functionName: 'escrow' })).toLowerCase();
}

/** A partner with `count` cards of its own contract, minted to itself. */
async function partnerWithCards(count: number) {
  const partner = await signedInPartner(t.app, t.services);
  const own = partner.partner.main_address;
  const cardIds: number[] = [];
  for (let start = 0; start < count; start += 100) {
    const answer = await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: Array(Math.min(100, count - start)).fill(own) }));
    cardIds.push(...answer.card_ids.map(Number));
  }
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: Record<string, unknown>) =>
    partnerCall(t.app, partner.token, method, url, body && { pin: partner.pinHash, contract_address: partner.contractAddress, ...body });
  return { ...partner, own, cardIds, call };
}

test('A15 to A19: approve, deposit with links, list, claim once, cancel; refusals change nothing', async () => {
  const partner = await partnerWithCards(5);
  const [c1, c2, c3, c4, c5] = partner.cardIds as [number, number, number, number, number];
  const contract = partner.contractAddress;
  const escrow = await escrowAddress(contract);
  const approval = () => partnerCall(t.app, partner.token, 'GET', `/v2/escrow/approve?contract_address=${contract}`);

  // Before A15: not approved, and A17 is refused before anything moves or is stored.
  assert.deepEqual((await approval()).json(), { approve: false });
  const early = await partner.call('POST', '/v2/escrow', { card_ids: [c1] });
  assert.equal(early.statusCode, 400);
  assert.deepEqual(withoutMessage(early.json()), { code: 4203, err: 'escrow is not approved for the contract' });
  assert.equal(await ownerOf(contract, c1), partner.own);
  const wrongPin = await partner.call('POST', '/v2/escrow/approve', { pin: 'e'.repeat(64) });
  assert.deepEqual(wrongPin.json(), { code: 4006, err: 'invalid pin code' });
  assert.deepEqual((await approval()).json(), { approve: false });

  const approved = await partner.call('POST', '/v2/escrow/approve', {});
  assert.equal(approved.statusCode, 200, approved.body);
  assert.match(approved.json().tx_hash, /^0x[0-9a-f]{64}$/);
  assert.deepEqual((await approval()).json(), { approve: true });
  const onChain = await client().readContract({
    address: contract as Address,
    abi: cardNftAbi,
    functionName: 'isApprovedForAll',
    args: [partner.own as Address, escrow as Address],
  });
  assert.equal(onChain, true);

  // A card sent away cannot go into escrow: it is counted as failed and gets no link.
  const member = await signedInMember(t.app, t.services);
  const sent = await partnerCall(t.app, partner.token, 'POST', `/v2/wallet/nft/${partner.nftId}/${c5}/send`, {
    pin: partner.pinHash,
    to_address: member.address,
    card_name: 'Gold',
  });
  assert.equal(sent.statusCode, 200, sent.body);

  const deposited = await partner.call('POST', '/v2/escrow', { card_ids: [c1, c5, c2, c3] });
  assert.equal(deposited.statusCode, 200, deposited.body);
  const result = deposited.json();
  assert.equal(result.fail_count, 1);
  assert.deepEqual(result.failed_card_ids, [c5]);
  assert.equal(result.claim_links.length, 3);
  for (const link of result.claim_links) assert.ok(link.startsWith(`${t.services.config.publicUrl}/claim/`), link);
  const [link1, link2, link3] = (result.claim_links as string[]).map(claimLinkParts) as [ReturnType<typeof claimLinkParts>, ReturnType<typeof claimLinkParts>, ReturnType<typeof claimLinkParts>];
  for (const cardId of [c1, c2, c3]) assert.equal(await ownerOf(contract, cardId), escrow, `card ${cardId} is held by the escrow`);
  assert.equal(await ownerOf(contract, c5), member.address.toLowerCase());
  const receipt = await partnerCall(t.app, partner.token, 'GET', `/v2/wallet/receipt?tx_hash=${result.tx_hash}`);
  assert.deepEqual(receipt.json(), { success: true });
  // Only hashes are stored: no secret of a link is in the store.
  const rows = await t.services.store.db.selectFrom('escrow_claims').selectAll().where('contract', '=', contract).execute();
  assert.equal(rows.length, 3);
  assert.doesNotMatch(JSON.stringify(rows), new RegExp(`${link1.secret}|${link2.secret}|${link3.secret}`));

  // A13 no longer lists the cards in escrow; A18 does, with owner and sender.
  const nftList = await partnerCall(t.app, partner.token, 'GET', `/v2/wallet/nft/${partner.nftId}`);
  assert.deepEqual(nftList.json().cards.map((card: { card_id: number }) => card.card_id), [c4]);
  const escrowList = async () => {
    const response = await partnerCall(t.app, partner.token, 'GET', `/v2/escrow?contract_address=${contract}`);
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };
  const listed = await escrowList();
  assert.deepEqual(listed.cards.map((card: { card_id: number }) => card.card_id), [c1, c2, c3]);
  assert.equal(listed.next_cursor, '');
  assert.deepEqual(
    { owner: listed.cards[0].owner, sender: listed.cards[0].sender, uri: listed.cards[0].card_uri },
    { owner: escrow, sender: partner.own, uri: `${t.services.config.publicUrl}/v2/metadata/${partner.nftId}/${c1}` },
  );

  // Claiming: the whole link is needed; the first member holds it; the same member may call again.
  const claimer = await signedInMember(t.app, t.services);
  const other = await signedInMember(t.app, t.services);
  const view = await walletApp(t.app, claimer.token, 'POST', `/v2/wallet-app/claims/${link1.claimId}/view`, { secret: link1.secret });
  assert.equal(view.statusCode, 200, view.body);
  assert.deepEqual(
    { status: view.json().status, card_id: view.json().card_id, nft_id: view.json().nft_id, name: view.json().name },
    { status: 'in_escrow', card_id: c1, nft_id: Number(partner.nftId), name: 'Gold Member Card' },
  );
  const wrongSecret = await walletApp(t.app, claimer.token, 'POST', `/v2/wallet-app/claims/${link1.claimId}/claim`, { secret: link2.secret });
  assert.equal(wrongSecret.statusCode, 404);
  assert.deepEqual(withoutMessage(wrongSecret.json()), { code: 4206, err: 'claim link is not valid' });
  const unknown = await walletApp(t.app, claimer.token, 'POST', `/v2/wallet-app/claims/${'A'.repeat(22)}/view`, { secret: link1.secret });
  assert.deepEqual(withoutMessage(unknown.json()), { code: 4206, err: 'claim link is not valid' });
  const signedOut = await t.app.inject({ method: 'POST', url: `/v2/wallet-app/claims/${link1.claimId}/claim`, payload: { secret: link1.secret } });
  assert.equal(signedOut.statusCode, 401);
  assert.equal(await ownerOf(contract, c1), escrow, 'refused claims move nothing');

  const claimed = await walletApp(t.app, claimer.token, 'POST', `/v2/wallet-app/claims/${link1.claimId}/claim`, { secret: link1.secret });
  assert.equal(claimed.statusCode, 200, claimed.body);
  assert.equal(claimed.json().status, 'claimed');
  assert.equal(claimed.json().claimed_to, claimer.address.toLowerCase());
  assert.equal(await ownerOf(contract, c1), claimer.address.toLowerCase());
  const again = await walletApp(t.app, claimer.token, 'POST', `/v2/wallet-app/claims/${link1.claimId}/claim`, { secret: link1.secret });
  assert.equal(again.statusCode, 200, again.body);
  assert.equal(again.json().tx_hash, claimed.json().tx_hash, 'a repeated claim sends nothing new');
  const late = await walletApp(t.app, other.token, 'POST', `/v2/wallet-app/claims/${link1.claimId}/claim`, { secret: link1.secret });
  assert.deepEqual(withoutMessage(late.json()), { code: 4205, err: 'card was already claimed' });
  assert.deepEqual((await escrowList()).cards.map((card: { card_id: number }) => card.card_id), [c2, c3]);

  // A19: cards in escrow go back; the claimed one and one never deposited fail; their links stop working.
  const canceled = await partner.call('DELETE', '/v2/escrow', { card_ids: [c2, c1, c4] });
  assert.equal(canceled.statusCode, 200, canceled.body);
  assert.equal(canceled.json().fail_count, 2);
  assert.deepEqual(canceled.json().failed_card_ids, [c1, c4]);
  assert.match(canceled.json().tx_hash, /^0x[0-9a-f]{64}$/);
  assert.equal(await ownerOf(contract, c2), partner.own);
  assert.equal(await ownerOf(contract, c1), claimer.address.toLowerCase());
  const gone = await walletApp(t.app, other.token, 'POST', `/v2/wallet-app/claims/${link2.claimId}/claim`, { secret: link2.secret });
  assert.deepEqual(withoutMessage(gone.json()), { code: 4204, err: 'card is not in escrow' });
  const goneView = await walletApp(t.app, other.token, 'POST', `/v2/wallet-app/claims/${link2.claimId}/view`, { secret: link2.secret });
  assert.equal(goneView.json().status, 'not_in_escrow');
  assert.equal(await ownerOf(contract, c2), partner.own);
  const list13 = await partnerCall(t.app, partner.token, 'GET', `/v2/wallet/nft/${partner.nftId}`);
  assert.deepEqual(list13.json().cards.map((card: { card_id: number }) => card.card_id), [c2, c4], 'returned cards are back in the list');
  assert.deepEqual((await escrowList()).cards.map((card: { card_id: number }) => card.card_id), [c3]);

  const nothing = await partner.call('DELETE', '/v2/escrow', { card_ids: [c2, c4] });
  assert.deepEqual(withoutMessage(nothing.json()), { code: 4204, err: 'card is not in escrow' });
  const noneHeld = await partner.call('POST', '/v2/escrow', { card_ids: [c1, c5] });
  assert.deepEqual(withoutMessage(noneHeld.json()), { code: 4201, err: 'card is not held by the partner' });
  const badPin = await partner.call('POST', '/v2/escrow', { card_ids: [c2], pin: 'e'.repeat(64) });
  assert.deepEqual(badPin.json(), { code: 4006, err: 'invalid pin code' });
  assert.equal(await ownerOf(contract, c2), partner.own, 'refused deposits move nothing');
  assert.equal((await t.services.store.db.selectFrom('escrow_claims').select('id').where('contract', '=', contract).execute()).length, 3, 'and store nothing');
});

test('A17 and A19 refuse malformed bodies and other contracts with 400, before anything is sent', async () => {
  const partner = await partnerWithCards(1);
  const [cardId] = partner.cardIds as [number];
  const other = await signedInPartner(t.app, t.services);
  const nonces = () => client().getTransactionCount({ address: partner.own as Address });
  const before = await nonces();
  const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
    ['empty card_ids', { card_ids: [] }, /card_ids/],
    ['101 card_ids', { card_ids: Array.from({ length: 101 }, (_, index) => index + 1) }, /card_ids/],
    ['duplicate card_ids', { card_ids: [cardId, cardId] }, /card_ids/],
    ['card id 0', { card_ids: [0] }, /card_ids/],
    ['card id as text', { card_ids: ['one'] }, /card_ids/],
    ['no pin', { card_ids: [cardId], pin: undefined }, /pin/],
    ['bad contract_address', { card_ids: [cardId], contract_address: 'nope' }, /contract_address/],
    ['another partner\'s contract', { card_ids: [cardId], contract_address: other.contractAddress }, /contract_address/],
  ];
  for (const [name, body, field] of refusals) {
    for (const method of ['POST', 'DELETE'] as const) {
      const payload = { pin: partner.pinHash, contract_address: partner.contractAddress, ...body };
      for (const [key, value] of Object.entries(payload)) if (value === undefined) delete payload[key as keyof typeof payload];
      const response = await partnerCall(t.app, partner.token, method, '/v2/escrow', payload);
      assert.equal(response.statusCode, 400, `${method} ${name}: ${response.body}`);
      assert.deepEqual(withoutMessage(response.json()), { code: 400, err: 'bad request' }, `${method} ${name}`);
      assert.match(response.json().message, field, `${method} ${name}`);
    }
  }
  const listOther = await partnerCall(t.app, partner.token, 'GET', `/v2/escrow?contract_address=${other.contractAddress}`);
  assert.equal(listOther.statusCode, 400);
  const noQuery = await partnerCall(t.app, partner.token, 'GET', '/v2/escrow/approve');
  assert.equal(noQuery.statusCode, 400);
  assert.match(noQuery.json().message, /contract_address/);
  const noToken = await t.app.inject({ method: 'GET', url: `/v2/escrow?contract_address=${partner.contractAddress}` });
  assert.equal(noToken.statusCode, 401);
  assert.equal(await nonces(), before, 'no transaction was sent');
  assert.equal(await ownerOf(partner.contractAddress, cardId), partner.own);
});

test('A18 pages 100 cards at a time; a fault answers 500 with the code and err pair', async () => {
  const partner = await partnerWithCards(101);
  // Calls signed with the right PIN at once all go through: none finds the key "locked" (403).
  const approvals = await Promise.all(Array.from({ length: 8 }, () => partner.call('POST', '/v2/escrow/approve', {})));
  assert.deepEqual(approvals.map((approval) => approval.statusCode), Array(8).fill(200), approvals.map((approval) => approval.body).join('\n'));
  const first = await partner.call('POST', '/v2/escrow', { card_ids: partner.cardIds.slice(0, 100) });
  assert.equal(first.statusCode, 200, first.body);
  assert.equal(first.json().claim_links.length, 100);
  const second = await partner.call('POST', '/v2/escrow', { card_ids: partner.cardIds.slice(100) });
  assert.equal(second.json().claim_links.length, 1);

  const page = (cursor?: string) =>
    partnerCall(t.app, partner.token, 'GET', `/v2/escrow?contract_address=${partner.contractAddress}${cursor ? `&cursor=${cursor}` : ''}`);
  const one = (await page()).json();
  assert.equal(one.cards.length, 100);
  assert.notEqual(one.next_cursor, '');
  const two = (await page(one.next_cursor)).json();
  assert.deepEqual([...one.cards, ...two.cards].map((card: { card_id: number }) => card.card_id), partner.cardIds);
  assert.equal(two.next_cursor, '');
  assert.equal((await page('not-a-cursor')).statusCode, 400);

  // The node failing under A16: the escrow operations answer 500 with { code, err }, not an empty body.
  const chainClient = client();
  const readContract = chainClient.readContract;
  chainClient.readContract = (() => Promise.reject(new Error('node unavailable'))) as typeof readContract;
  try {
    const failed = await partnerCall(t.app, partner.token, 'GET', `/v2/escrow/approve?contract_address=${partner.contractAddress}`);
    assert.equal(failed.statusCode, 500);
    assert.deepEqual(failed.json(), { code: 500, err: 'internal server error' });
  } finally {
    chainClient.readContract = readContract;
  }
});

test('races: two deposits of the same card give it one link; two members claiming one link at once, one gets it', async () => {
  const partner = await partnerWithCards(1);
  const [cardId] = partner.cardIds as [number];
  assert.equal((await partner.call('POST', '/v2/escrow/approve', {})).statusCode, 200);
  const deposits = await Promise.all([partner.call('POST', '/v2/escrow', { card_ids: [cardId] }), partner.call('POST', '/v2/escrow', { card_ids: [cardId] })]);
  const links = deposits.flatMap((response) => (response.statusCode === 200 ? (response.json().claim_links as string[]) : []));
  assert.equal(links.length, 1, deposits.map((response) => response.body).join('\n'));
  for (const response of deposits) {
    if (response.statusCode === 200 && response.json().claim_links.length === 0) assert.deepEqual(response.json().failed_card_ids, [cardId]);
    // The other deposit lost the card's claim (4209) or came after the card was in escrow (4201).
    else if (response.statusCode !== 200) assert.ok([4201, 4209].includes(response.json().code), response.body);
  }
  const rows = await t.services.store.db.selectFrom('escrow_claims').select('id').where('contract', '=', partner.contractAddress).execute();
  assert.equal(rows.length, 1, 'the deposit that failed left no row');

  const link = claimLinkParts(links[0]!);
  const members = await Promise.all([signedInMember(t.app, t.services), signedInMember(t.app, t.services)]);
  const claims = await Promise.all(
    members.map((member) => walletApp(t.app, member.token, 'POST', `/v2/wallet-app/claims/${link.claimId}/claim`, { secret: link.secret })),
  );
  const won = claims.findIndex((response) => response.statusCode === 200);
  assert.ok(won >= 0, claims.map((response) => response.body).join('\n'));
  assert.deepEqual(withoutMessage(claims[1 - won]!.json()), { code: 4205, err: 'card was already claimed' });
  assert.equal(await ownerOf(partner.contractAddress, cardId), members[won]!.address.toLowerCase());
  const claimTransactions = await t.services.store.db.selectFrom('outbox_transactions').select('id').where('idempotency_key', '=', `escrow-claim:${link.claimId}`).execute();
  assert.equal(claimTransactions.length, 1);
});

/**
 * A claim transaction of the link that reverts on chain, sent under `key` the way the service sends
 * claims (the operator, through the outbox): the wrong secret, with the gas given so that nothing
 * estimates it away first.
 */
async function revertedClaimAttempt(contract: string, cardId: number, key: string): Promise<Hex> {
  const operator = await t.services.operator.signer();
  const submitted = await t.services.outbox.submit({
    idempotencyKey: key,
    chain: 'main',
    signer: operator,
    to: (await escrowAddress(contract)) as Address,
    data: encodeFunctionData({ abi: cardEscrowAbi, functionName: 'claim', args: [contract as Address, BigInt(cardId), `0x${'ab'.repeat(32)}`, operator.address] }),
    gas: 200_000n,
  });
  const final = await t.services.outbox.waitForFinal(submitted.id);
  assert.equal(final.receiptStatus, 'reverted');
  return final.txHash;
}

test('a claim transaction that did not go through is sent again under the next attempt, three attempts at most', async () => {
  const partner = await partnerWithCards(2);
  const [retried, exhausted] = partner.cardIds as [number, number];
  assert.equal((await partner.call('POST', '/v2/escrow/approve', {})).statusCode, 200);
  const deposit = await partner.call('POST', '/v2/escrow', { card_ids: [retried, exhausted] });
  assert.equal(deposit.statusCode, 200, deposit.body);
  const [retriedLink, exhaustedLink] = (deposit.json().claim_links as string[]).map(claimLinkParts) as [ReturnType<typeof claimLinkParts>, ReturnType<typeof claimLinkParts>];
  const member = await signedInMember(t.app, t.services);
  const claim = (link: ReturnType<typeof claimLinkParts>) =>
    walletApp(t.app, member.token, 'POST', `/v2/wallet-app/claims/${link.claimId}/claim`, { secret: link.secret });
  const claimTransactions = (link: ReturnType<typeof claimLinkParts>) =>
    t.services.store.db
      .selectFrom('outbox_transactions')
      .select(['idempotency_key', 'tx_hash', 'receipt_status'])
      .where('idempotency_key', 'like', `escrow-claim:${link.claimId}%`)
      .orderBy('idempotency_key')
      .execute();

  // The link's first claim transaction reverted; the card is still in escrow under the link.
  const firstAttempt = await revertedClaimAttempt(partner.contractAddress, retried, `escrow-claim:${retriedLink.claimId}`);
  const claimed = await claim(retriedLink);
  assert.equal(claimed.statusCode, 200, claimed.body);
  assert.equal(claimed.json().status, 'claimed');
  assert.equal(await ownerOf(partner.contractAddress, retried), member.address.toLowerCase());
  const sent = await claimTransactions(retriedLink);
  assert.deepEqual(
    sent.map((row) => [row.idempotency_key, row.receipt_status]),
    [
      [`escrow-claim:${retriedLink.claimId}`, 'reverted'],
      [`escrow-claim:${retriedLink.claimId}:1`, 'success'],
    ],
  );
  assert.equal(sent[0]!.tx_hash, firstAttempt);
  assert.equal(claimed.json().tx_hash, sent[1]!.tx_hash);
  // Asked again (a lost answer): the same transaction, nothing new sent.
  const again = await claim(retriedLink);
  assert.equal(again.json().tx_hash, sent[1]!.tx_hash);
  assert.equal((await claimTransactions(retriedLink)).length, 2);

  // Every attempt the link allows went through and reverted: 4204, the card stays in escrow, and no
  // fourth transaction is sent.
  for (const suffix of ['', ':1', ':2']) await revertedClaimAttempt(partner.contractAddress, exhausted, `escrow-claim:${exhaustedLink.claimId}${suffix}`);
  const refused = await claim(exhaustedLink);
  assert.equal(refused.statusCode, 400, refused.body);
  assert.equal(refused.json().code, 4204);
  assert.match(refused.json().message, /3 attempts/);
  assert.equal(await ownerOf(partner.contractAddress, exhausted), await escrowAddress(partner.contractAddress));
  assert.equal((await claimTransactions(exhaustedLink)).length, 3);
});

test('A17 resumed under its key with nothing submitted drops the first call\'s claim rows; a later resume answers the same links', async () => {
  const partner = await partnerWithCards(2);
  assert.equal((await partner.call('POST', '/v2/escrow/approve', {})).statusCode, 200);
  const callKey = { partnerId: partner.partner.id, key: 'deposit-resumed', createdAtMs: Date.now(), resumed: true };
  const depositKey = operationKey('escrow-deposit', callKey);
  // What a first call stopped between storing its claims and sending the deposit leaves.
  const orphan = { id: 'O'.repeat(22), claim_hash: `0x${'11'.repeat(32)}`, sealed_secret: 'sealed', secret_master_key_id: 'm' };
  const now = Date.now();
  await t.services.store.db
    .insertInto('escrow_claims')
    .values({ ...orphan, chain: 'main', escrow_address: '0x01', nft_id: partner.nftId, contract: partner.contractAddress.toLowerCase(), token_id: partner.cardIds[0]!, partner_id: partner.partner.id, depositor: partner.own, deposit_key: depositKey, claimed_by: null, claimed_to: null, created_ms: now, updated_ms: now })
    .execute();
  const input = { pin: partner.pinHash, cardIds: partner.cardIds, contractAddress: partner.contractAddress, callKey };
  const first = await depositCards(t.services, partner.partner, input);
  assert.equal(first.claim_links.length, 2);
  assert.equal(first.fail_count, 0);
  const rows = await t.services.store.db.selectFrom('escrow_claims').select('id').where('deposit_key', '=', depositKey).execute();
  assert.deepEqual(new Set(rows.map((row) => row.id)), new Set(first.claim_links.map((link) => claimLinkParts(link).claimId)), 'the orphan rows are gone');
  // Resumed again, the deposit is found submitted: the answer is rebuilt from the sealed secrets.
  assert.deepEqual(await depositCards(t.services, partner.partner, input), first);
});
