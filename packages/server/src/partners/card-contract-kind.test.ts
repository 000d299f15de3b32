import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cardNftAbi } from '@wallet-service/contracts';
import type { Address, Hex } from 'viem';
import { openTestApp, type TestApp } from '../testing/test-services.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { signedInMember, walletApp } from '../a2a/testing/support.ts';
import { buildAddresses, buildMintPayload, indexedToHead, mintOk, partnerCall } from '../cards/testing/card-factories.ts';
import { claimLinkParts } from '../escrow/testing/claim-links.ts';
import { withoutMessage } from '../testing/responses.ts';
import { AppError } from '../errors/app-error.ts';
import { Errors } from '../errors/codes.ts';
import { approvePartner } from './commands.ts';

let t: TestApp;
before(async () => {
  t = await openTestApp();
});
after(async () => {
  await t.cleanup();
});

const client = () => t.services.chains.get('main').client;

async function ownerOf(contract: string, cardId: number): Promise<string | undefined> {
  try {
    return (await client().readContract({ address: contract as Address, abi: cardNftAbi, functionName: 'ownerOf', args: [BigInt(cardId)] })).toLowerCase();
  } catch {
    return undefined;
  }
}

const balanceOf = async (contract: string, holder: string) =>
  Number(await client().readContract({ address: contract as Address, abi: cardNftAbi, functionName: 'balanceOf', args: [holder as Address] }));

/** Gas per card of an A7 mint of `count` fresh recipients, from its receipt. */
async function mintGasPerCard(partner: Awaited<ReturnType<typeof signedInPartner>>, count: number): Promise<number> {
  const answer = await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: buildAddresses(count) }));
  assert.equal(answer.minted_count, count);
  const receipt = await client().getTransactionReceipt({ hash: answer.hash as Hex });
  assert.equal(receipt.status, 'success');
  return Number(receipt.gasUsed) / count;
}

test('a lean partner mints, sends, burns, escrows and lists through the same routes; its contract is LeanCardNFT on chain', async () => {
  const lean = await signedInPartner(t.app, t.services, { cardContract: 'lean' });
  const indexed = await signedInPartner(t.app, t.services);
  assert.equal(lean.cardContract, 'lean');
  assert.equal(indexed.cardContract, 'indexed');
  const rows = await t.services.store.db.selectFrom('nft_contracts').select(['id', 'kind']).where('id', 'in', [lean.nftId, indexed.nftId]).execute();
  assert.deepEqual(Object.fromEntries(rows.map((row) => [row.id, row.kind])), { [lean.nftId]: 'lean', [indexed.nftId]: 'indexed' });

  // The kinds differ where they are meant to: the lean contract keeps no per-owner record, so a
  // mint to fresh recipients costs a quarter of the indexed one's.
  const leanGas = await mintGasPerCard(lean, 50);
  const indexedGas = await mintGasPerCard(indexed, 50);
  assert.ok(leanGas < 12_000, `lean mint ${leanGas} gas a card`);
  assert.ok(indexedGas > 2 * leanGas, `indexed mint ${indexedGas} gas a card against lean ${leanGas}`);

  const contract = lean.contractAddress;
  const own = lean.partner.main_address.toLowerCase();
  const member = await signedInMember(t.app, t.services);
  const minted = await mintOk(t.app, lean.token, buildMintPayload(lean, { to_address: [own, own, own, own, own, member.address] }));
  const [c1, c2, c3, c4, c5, toMember] = minted.card_ids.map(Number) as [number, number, number, number, number, number];
  assert.equal(await ownerOf(contract, toMember), member.address.toLowerCase());
  assert.equal(await balanceOf(contract, own), 5);

  // A10 send, A14 burn.
  const sent = await partnerCall(t.app, lean.token, 'POST', `/v2/wallet/nft/${lean.nftId}/${c1}/send`, { pin: lean.pinHash, card_name: 'Gold', to_address: member.address });
  assert.equal(sent.statusCode, 200, sent.body);
  assert.equal(await ownerOf(contract, c1), member.address.toLowerCase());
  const again = await partnerCall(t.app, lean.token, 'POST', `/v2/wallet/nft/${lean.nftId}/${c1}/send`, { pin: lean.pinHash, card_name: 'Gold', to_address: buildAddresses(1)[0] });
  assert.deepEqual(withoutMessage(again.json()), { code: 4201, err: 'card is not held by the partner' });
  const burned = await partnerCall(t.app, lean.token, 'DELETE', '/v2/wallet/nft', { pin: lean.pinHash, card_id: c2, contract_address: contract });
  assert.equal(burned.statusCode, 200, burned.body);
  assert.equal(await ownerOf(contract, c2), undefined, 'burned on chain');

  // A15 approve, A17 deposit, a member claims one link.
  const escrow = (await client().readContract({ address: contract as Address, abi: cardNftAbi, functionName: 'escrow' })).toLowerCase();
  const approved = await partnerCall(t.app, lean.token, 'POST', '/v2/escrow/approve', { pin: lean.pinHash, contract_address: contract });
  assert.equal(approved.statusCode, 200, approved.body);
  assert.equal(await client().readContract({ address: contract as Address, abi: cardNftAbi, functionName: 'isApprovedForAll', args: [own as Address, escrow as Address] }), true);
  const deposited = await partnerCall(t.app, lean.token, 'POST', '/v2/escrow', { pin: lean.pinHash, contract_address: contract, card_ids: [c3, c4] });
  assert.equal(deposited.statusCode, 200, deposited.body);
  assert.equal(deposited.json().fail_count, 0);
  assert.equal(await ownerOf(contract, c3), escrow);
  assert.equal(await ownerOf(contract, c4), escrow);
  const link = claimLinkParts(deposited.json().claim_links[0]);
  const claimed = await walletApp(t.app, member.token, 'POST', `/v2/wallet-app/claims/${link.claimId}/claim`, { secret: link.secret });
  assert.equal(claimed.statusCode, 200, claimed.body);
  assert.equal(await ownerOf(contract, c3), member.address.toLowerCase());

  // Chain state after it all, and the lists the card index serves (A13, A18, B3).
  assert.deepEqual(
    [await balanceOf(contract, own), await balanceOf(contract, member.address), await balanceOf(contract, escrow)],
    [1, 3, 1],
  );
  await indexedToHead(t.services);
  const held = await partnerCall(t.app, lean.token, 'GET', `/v2/wallet/nft/${lean.nftId}`);
  assert.equal(held.statusCode, 200, held.body);
  assert.deepEqual(held.json().cards.map((card: { card_id: number }) => card.card_id), [c5]);
  const inEscrow = await partnerCall(t.app, lean.token, 'GET', `/v2/escrow?contract_address=${contract}`);
  assert.deepEqual(inEscrow.json().cards.map((card: { card_id: number }) => card.card_id), [c4]);
  const b3 = await t.app.inject({ method: 'GET', url: `/v2/a2a/cards?sca=${contract}&eoa=${member.address}` });
  assert.equal(b3.statusCode, 200, b3.body);
  assert.deepEqual(b3.json().cards.map((card: { card_id: number }) => card.card_id).sort((a: number, b: number) => a - b), [c1, c3, toMember].sort((a, b) => a - b));
});

test('the kind is chosen once: another kind later, or an unknown one, is refused and deploys nothing', async () => {
  const lean = await signedInPartner(t.app, t.services, { cardContract: 'lean' });
  const nonce = await client().getTransactionCount({ address: (await t.services.operator.signer()).address, blockTag: 'pending' });
  const refused = (input: Parameters<typeof approvePartner>[1]) =>
    assert.rejects(approvePartner(t.services, input), (error: unknown) => error instanceof AppError && error.code === Errors.BadRequest);
  await refused({ email: lean.partner.email, cardContract: 'indexed' });
  await refused({ email: lean.partner.email, cardContract: 'fast' as 'lean' });
  assert.equal(await client().getTransactionCount({ address: (await t.services.operator.signer()).address, blockTag: 'pending' }), nonce, 'nothing signed');
  const row = await t.services.store.db.selectFrom('nft_contracts').select(['kind', 'address']).where('id', '=', lean.nftId).executeTakeFirstOrThrow();
  assert.deepEqual(row, { kind: 'lean', address: lean.contractAddress.toLowerCase() });

  // Approving again without a kind, or with the same one, is harmless and keeps the contract.
  const repeated = await approvePartner(t.services, { email: lean.partner.email, cardContract: 'lean' });
  assert.deepEqual([repeated.contractAddress, repeated.cardContract], [lean.contractAddress, 'lean']);
  assert.equal((await approvePartner(t.services, { email: lean.partner.email })).cardContract, 'lean');
});
