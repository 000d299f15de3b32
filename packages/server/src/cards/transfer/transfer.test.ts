import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cardNftAbi } from '@wallet-service/contracts';
import { createWalletClient, encodeFunctionData, http, type Address } from 'viem';
import { estimateGas } from '../../outbox/fees.ts';
import { openTestApp, type TestApp } from '../../testing/test-services.ts';
import { signedInPartner } from '../../partner-api/testing/partner-session.ts';
import { BAPP, prepare, signedInMember, walletApp } from '../../a2a/testing/support.ts';
import { uploadBody } from '../../uploads/testing/multipart.ts';
import { buildJpeg } from '../../uploads/testing/media.ts';
import { buildAddresses, buildMintPayload, indexedToHead, mintOk, partnerCall } from '../testing/card-factories.ts';
import { withoutMessage } from '../../testing/responses.ts';

let t: TestApp;
before(async () => {
  t = await openTestApp();
});
after(async () => {
  await t.cleanup();
});

const chain = () => t.services.chains.get('main');

async function ownerOf(contract: string, cardId: number): Promise<string | undefined> {
  try {
    const owner = await chain().client.readContract({ address: contract as Address, abi: cardNftAbi, functionName: 'ownerOf', args: [BigInt(cardId)] });
    return owner.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Sends a card with the holder's own key, straight to the node: not through the service. */
async function transferOnChain(services: TestApp['services'], keyId: string, pinHash: string, contract: string, to: string, cardId: number): Promise<void> {
  const { account } = await services.vault.unlock(keyId, pinHash);
  const wallet = createWalletClient({ account, chain: chain().viemChain, transport: http(chain().rpcUrl) });
  const hash = await wallet.writeContract({ address: contract as Address, abi: cardNftAbi, functionName: 'transferFrom', args: [account.address, to as Address, BigInt(cardId)] });
  const receipt = await chain().client.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, 'success');
}

test('A10 sends a held card; A14 burns one; cards not held, sent or unknown are refused with their codes', async () => {
  const partner = await signedInPartner(t.app, t.services);
  const member = await signedInMember(t.app, t.services);
  const nftId = Number(partner.nftId);
  const contract = partner.contractAddress;
  const own = partner.partner.main_address;
  await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: [own, own, own] }));
  const send = (cardId: number, body: Record<string, unknown>) =>
    partnerCall(t.app, partner.token, 'POST', `/v2/wallet/nft/${nftId}/${cardId}/send`, { pin: partner.pinHash, card_name: 'Gold', ...body });

  const sent = await send(1, { to_address: member.address });
  assert.equal(sent.statusCode, 200, sent.body);
  assert.match(sent.json().hash, /^0x[0-9a-f]{64}$/);
  assert.equal(await ownerOf(contract, 1), member.address.toLowerCase());
  const receipt = await partnerCall(t.app, partner.token, 'GET', `/v2/wallet/receipt?tx_hash=${sent.json().hash}`);
  assert.deepEqual(receipt.json(), { success: true });

  const again = await send(1, { to_address: buildAddresses(1)[0] });
  assert.equal(again.statusCode, 400);
  assert.deepEqual(again.json(), { code: 4201, err: 'card is not held by the partner' });
  const unknownCard = await send(99, { to_address: member.address });
  assert.equal(unknownCard.statusCode, 404);
  const unknownContract = await partnerCall(t.app, partner.token, 'POST', `/v2/wallet/nft/999999/1/send`, { pin: partner.pinHash, card_name: 'x', to_address: member.address });
  assert.equal(unknownContract.statusCode, 404);
  for (const body of [{ to_address: 'nope' }, { to_address: member.address, card_name: undefined }, { to_address: member.address, pin: '12' }]) {
    const refused = await send(2, body);
    assert.equal(refused.statusCode, 400, JSON.stringify(body));
    assert.deepEqual(withoutMessage(refused.json()), { code: 400, err: 'bad request' });
  }
  const wrongPin = await send(2, { to_address: member.address, pin: 'e'.repeat(64) });
  assert.deepEqual(wrongPin.json(), { code: 4006, err: 'invalid pin code' });
  assert.equal(await ownerOf(contract, 2), own);

  const burn = (cardId: number, extra: Record<string, unknown> = {}) =>
    partnerCall(t.app, partner.token, 'DELETE', '/v2/wallet/nft', { pin: partner.pinHash, card_id: cardId, contract_address: contract, ...extra });
  const burned = await burn(2);
  assert.equal(burned.statusCode, 200, burned.body);
  assert.equal(await ownerOf(contract, 2), undefined, 'burned on chain');
  const metadata = await t.app.inject({ method: 'GET', url: `/v2/metadata/${nftId}/2` });
  assert.equal(metadata.statusCode, 404, 'a burned card has no metadata');
  assert.equal((await burn(2)).statusCode, 404, 'already burned');
  assert.deepEqual((await burn(1)).json(), { code: 4201, err: 'card is not held by the partner' }, 'sent to a member');
  const other = await signedInPartner(t.app, t.services);
  const foreign = await burn(3, { contract_address: other.contractAddress });
  assert.equal(foreign.statusCode, 400);
  assert.equal(await ownerOf(contract, 3), own);

  await indexedToHead(t.services);
  const list = await t.services.cardIndex.listByOwner({ chain: 'main', owner: own, contract, limit: 10 });
  assert.deepEqual(list.cards.map((card) => card.tokenId), [3], 'the lists follow: 1 sent, 2 burned');
});

test('a non-sendable card stays with its holder; a sendable one can be sent on', async () => {
  const partner = await signedInPartner(t.app, t.services);
  const member = await signedInMember(t.app, t.services, { coins: '1' });
  const answer = await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: [member.address, member.address], sendable: false }));
  const [locked] = answer.card_ids;
  const refused = await prepare(t.app, {
    bapp: BAPP,
    type: 'send_card',
    transaction: { contract: partner.contractAddress, to: buildAddresses(1)[0], card_id: String(locked), from: member.address },
  });
  assert.equal(refused.statusCode, 400, refused.body);
  assert.equal(refused.json().code, 6414);
  assert.match(JSON.stringify(refused.json()), /CardNotSendable/);
  await assert.rejects(
    transferOnChain(t.services, member.user.key_id, member.pinHash, partner.contractAddress, buildAddresses(1)[0]!, locked!),
    /CardNotSendable|reverted/,
  );
  assert.equal(await ownerOf(partner.contractAddress, locked!), member.address.toLowerCase());

  const free = await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: [member.address], sendable: true }));
  const to = buildAddresses(1)[0]!;
  await transferOnChain(t.services, member.user.key_id, member.pinHash, partner.contractAddress, to, free.card_ids[0]!);
  assert.equal(await ownerOf(partner.contractAddress, free.card_ids[0]!), to);
});

test('secure: never in card_uri; the holder reads it and its files through the wallet-app API, nobody else, and not after sending it on', async () => {
  const partner = await signedInPartner(t.app, t.services);
  const holder = await signedInMember(t.app, t.services, { coins: '1' });
  const stranger = await signedInMember(t.app, t.services);
  const body = uploadBody(buildJpeg({ width: 64, height: 64 }), 'ticket.jpg', 'image/jpeg');
  const upload = await t.app.inject({
    method: 'POST',
    url: '/v2/wallet/nftResource/secure',
    headers: { authorization: partner.token, ...body.headers },
    payload: body.payload,
  });
  assert.equal(upload.statusCode, 200, upload.body);
  const filename = upload.json().filename as string;
  const secure = { bar_code: '1234-5678', attributes: [{ trait_type: 'seat', value: 'A12' }], images: [{ high_resolution: filename }] };
  const answer = await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: [holder.address], secure, sendable: true }));
  const cardId = answer.card_ids[0]!;
  const nftId = Number(partner.nftId);

  const publicMetadata = await t.app.inject({ method: 'GET', url: `/v2/metadata/${nftId}/${cardId}` });
  assert.equal(publicMetadata.statusCode, 200);
  assert.doesNotMatch(publicMetadata.body, /secure|A12|1234-5678/);

  const view = await walletApp(t.app, holder.token, 'GET', `/v2/wallet-app/cards/${nftId}/${cardId}`);
  assert.equal(view.statusCode, 200, view.body);
  assert.deepEqual(view.json().secure, secure);
  assert.equal(view.json().transaction_hash, answer.hash);
  const file = await walletApp(t.app, holder.token, 'GET', `/v2/wallet-app/files/secure/${filename}`);
  assert.equal(file.statusCode, 200, file.body);
  assert.equal(file.headers['content-type'], 'image/jpeg');

  assert.equal((await walletApp(t.app, stranger.token, 'GET', `/v2/wallet-app/cards/${nftId}/${cardId}`)).statusCode, 404);
  assert.equal((await walletApp(t.app, stranger.token, 'GET', `/v2/wallet-app/files/secure/${filename}`)).statusCode, 404);
  assert.equal((await t.app.inject({ method: 'GET', url: `/v2/wallet-app/cards/${nftId}/${cardId}` })).statusCode, 401);

  await transferOnChain(t.services, holder.user.key_id, holder.pinHash, partner.contractAddress, stranger.address, cardId);
  assert.equal((await walletApp(t.app, holder.token, 'GET', `/v2/wallet-app/cards/${nftId}/${cardId}`)).statusCode, 404, 'the old holder no longer reads it');
  const newView = await walletApp(t.app, stranger.token, 'GET', `/v2/wallet-app/cards/${nftId}/${cardId}`);
  assert.equal(newView.statusCode, 200);
  assert.equal((await walletApp(t.app, holder.token, 'GET', `/v2/wallet-app/files/secure/${filename}`)).statusCode, 404);
  assert.equal((await walletApp(t.app, stranger.token, 'GET', `/v2/wallet-app/files/secure/${filename}`)).statusCode, 200);
});

test('a card sent by its holder straight on chain leaves the sender\'s view within 5 s', async () => {
  const partner = await signedInPartner(t.app, t.services);
  const member = await signedInMember(t.app, t.services, { coins: '1' });
  const answer = await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: [member.address] }));
  await indexedToHead(t.services);
  const listed = await t.services.cardIndex.listByOwner({ chain: 'main', owner: member.address, limit: 10 });
  assert.deepEqual(listed.cards.map((card) => card.tokenId), [answer.card_ids[0]]);
  const to = buildAddresses(1)[0]!;
  await transferOnChain(t.services, member.user.key_id, member.pinHash, partner.contractAddress, to, answer.card_ids[0]!);
  const deadline = Date.now() + 5_000;
  let held = true;
  while (held && Date.now() < deadline) {
    const page = await t.services.cardIndex.listByOwner({ chain: 'main', owner: member.address, limit: 10 });
    held = page.cards.length > 0;
    if (held) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(held, false, 'still listed for the sender after 5 s');
  const page = await t.services.cardIndex.listByOwner({ chain: 'main', owner: to, limit: 10 });
  assert.deepEqual(page.cards.map((card) => card.tokenId), [answer.card_ids[0]]);
});

test('a burn priced while the partner\'s balance counter was non-zero still goes through when an earlier send brings it back to zero', async () => {
  // The card contract keeps a signed balance adjustment per address: setting it from zero costs
  // 20,000 gas, changing it from non-zero 2,900. Several calls of one partner run at once, so a
  // send mined between a burn's estimate and the burn itself can make the burn's write the dear one.
  const partner = await signedInPartner(t.app, t.services);
  const own = partner.partner.main_address as Address;
  const contract = partner.contractAddress as Address;
  await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: [own, own] }));
  const single = await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: [own] }));
  const [burned, sent] = [1, single.card_ids[0]!];
  const burn = encodeFunctionData({ abi: cardNftAbi, functionName: 'burn', args: [BigInt(burned)] });
  // The outbox's gas limit for the burn while the counter is +1 (the single-card mint wrote it).
  const gas = await estimateGas(chain(), own, contract, burn, 0n);

  const send = await partnerCall(t.app, partner.token, 'POST', `/v2/wallet/nft/${partner.nftId}/${sent}/send`, { pin: partner.pinHash, card_name: 'Gold', to_address: buildAddresses(1)[0] });
  assert.equal(send.statusCode, 200, send.body);

  const { account, address } = await t.services.vault.unlock(partner.partner.key_id, partner.pinHash);
  const submitted = await t.services.outbox.submit({ idempotencyKey: `burn-after-send:${burned}`, chain: 'main', signer: { address, account }, to: contract, data: burn, gas });
  const final = await t.services.outbox.waitForFinal(submitted.id);
  assert.equal(final.status, 'mined');
  assert.equal(final.receiptStatus, 'success', `burn with gas limit ${gas}`);
  assert.equal(await ownerOf(contract, burned), undefined, 'burned on chain');
});
