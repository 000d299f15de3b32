import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cardNftAbi } from '@wallet-service/contracts';
import type { Address, Hex } from 'viem';
import { openTestApp, type TestApp } from '../../testing/test-services.ts';
import { signedInPartner } from '../../partner-api/testing/partner-session.ts';
import { setBalance } from '../../a2a/testing/support.ts';
import { cardUri } from '../card-uri.ts';
import { buildAddresses, buildMintPayload, expectedCardIds, indexedToHead, mintOk, partnerCall, pathOf } from '../testing/card-factories.ts';
import { withoutMessage } from '../../testing/responses.ts';

let t: TestApp;
before(async () => {
  t = await openTestApp();
});
after(async () => {
  await t.cleanup();
});

const client = () => t.services.chains.get('main').client;

async function nextTokenId(contract: Address): Promise<bigint> {
  return client().readContract({ address: contract, abi: cardNftAbi, functionName: 'nextTokenId' });
}

async function mintCount(token: string): Promise<number> {
  const response = await partnerCall(t.app, token, 'GET', '/v2/wallet/mint/count');
  assert.equal(response.statusCode, 200, response.body);
  return response.json().mint_count;
}

describe('A7 mint to addresses', () => {
  test('250 cards to 250 addresses in one call: one transaction; owners and tokenURIs on chain match the index and card_uri', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const recipients = buildAddresses(250);
    const answer = await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: recipients }));
    assert.equal(answer.minted_count, 250);
    assert.equal(answer.fail_count, 0);
    assert.equal(answer.hashes.length, 1, 'one batched transaction');
    assert.equal(answer.hash, answer.hashes[0]);
    // One batch: the cards go in ascending address order, each recipient's id in card_ids.
    assert.deepEqual(answer.card_ids, expectedCardIds(recipients, 250));
    assert.equal(await mintCount(partner.token), 250);

    const receipt = await client().getTransactionReceipt({ hash: answer.hash as Hex });
    assert.equal(receipt.status, 'success');
    const contract = partner.contractAddress as Address;
    const nftId = Number(partner.nftId);
    const cardIds = answer.card_ids as number[];
    const calls = cardIds.flatMap((cardId) => [
      { address: contract, abi: cardNftAbi, functionName: 'ownerOf', args: [BigInt(cardId)] } as const,
      { address: contract, abi: cardNftAbi, functionName: 'tokenURI', args: [BigInt(cardId)] } as const,
    ]);
    await indexedToHead(t.services);
    const onChain = await Promise.all(calls.map((call) => client().readContract(call as never)));
    for (const [i, recipient] of recipients.entries()) {
      const owner = String(onChain[2 * i]).toLowerCase();
      const tokenUri = String(onChain[2 * i + 1]);
      assert.equal(owner, recipient, `owner of card ${cardIds[i]}`);
      assert.equal(tokenUri, cardUri(t.services.config.publicUrl, nftId, cardIds[i]!));
      const listed = await t.services.cardIndex.listByOwner({ chain: 'main', owner: recipient, limit: 10 });
      assert.deepEqual(listed.cards.map((card) => [card.contract, card.tokenId, card.mintTxHash]), [[contract, cardIds[i], answer.hash]]);
    }
    for (const cardId of [1, 125, 250]) {
      const metadata = await t.app.inject({ method: 'GET', url: pathOf(cardUri(t.services.config.publicUrl, nftId, cardId)) });
      assert.equal(metadata.statusCode, 200, metadata.body);
      const document = metadata.json();
      assert.equal(document.name, 'Gold Member Card');
      assert.equal(document.description, 'A card for gold members');
      assert.equal(document.image, 'https://cdn.example.com/cards/gold.png');
      assert.equal(document.animation_url, 'https://cdn.example.com/cards/gold.mp4');
      assert.equal(document.background_color, '112233');
      assert.deepEqual(document.attributes, [{ trait_type: 'tier', value: 'gold' }]);
      assert.equal(document.external_link, 'https://example.com/gold');
      assert.equal(document.layout, 'horizontal');
      assert.equal(document.sendable, true);
      assert.equal(document.card_id, cardId);
      assert.equal('secure' in document, false);
    }
    const beyond = await t.app.inject({ method: 'GET', url: `/v2/metadata/${nftId}/251` });
    assert.equal(beyond.statusCode, 404);
    assert.deepEqual(beyond.json(), { code: 404, err: 'not Found' });
  });

  test('a recipient named several times gets a card for each time; owners, balances and the index agree', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const [x, y] = buildAddresses(2) as [Address, Address];
    const recipients = [x, y, x, x];
    const answer = await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: recipients }));
    assert.equal(answer.minted_count, 4);
    const cardIds = answer.card_ids as number[];
    assert.deepEqual([...cardIds].sort(), [1, 2, 3, 4], 'a card of its own for each entry');
    const contract = partner.contractAddress as Address;
    for (const [i, recipient] of recipients.entries()) {
      const owner = await client().readContract({ address: contract, abi: cardNftAbi, functionName: 'ownerOf', args: [BigInt(cardIds[i]!)] });
      assert.equal(owner.toLowerCase(), recipient, `owner of card ${cardIds[i]}`);
    }
    assert.equal(await client().readContract({ address: contract, abi: cardNftAbi, functionName: 'balanceOf', args: [x] }), 3n);
    assert.equal(await client().readContract({ address: contract, abi: cardNftAbi, functionName: 'balanceOf', args: [y] }), 1n);
    await indexedToHead(t.services);
    const listed = await t.services.cardIndex.listByOwner({ chain: 'main', owner: x, limit: 10 });
    assert.deepEqual(listed.cards.map((card) => card.tokenId).sort(), [cardIds[0], cardIds[2], cardIds[3]].sort());
  });

  test('every payload rule: 400 with the registry body, nothing minted, stored or counted', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const other = await signedInPartner(t.app, t.services);
    const long = (n: number) => `https://example.com/${'a'.repeat(n - 20)}`;
    const attributes = (n: number) => Array.from({ length: n }, (_, i) => ({ trait_type: `t${i}`, value: 'v' }));
    const links = (n: number) => Array.from({ length: n }, (_, i) => ({ display_name: `l${i}`, value: 'https://example.com/x' }));
    const cases: Array<[string, Record<string, unknown>]> = [
      ['pin missing', { pin: undefined }],
      ['pin not 64 hex', { pin: 'abc' }],
      ['to_address missing', { to_address: undefined }],
      ['to_address empty', { to_address: [] }],
      ['to_address not an address', { to_address: ['0x1234'] }],
      ['to_address zero address', { to_address: ['0x0000000000000000000000000000000000000000'] }],
      ['to_address over the limit', { to_address: buildAddresses(1001) }],
      ['contract_address missing', { contract_address: undefined }],
      ['contract_address of another partner', { contract_address: other.contractAddress }],
      ['name missing', { name: undefined }],
      ['name empty', { name: '' }],
      ['description missing', { description: undefined }],
      ['image missing', { image: undefined }],
      ['image not a URL', { image: 'gold.png' }],
      ['animation_url not .mp4', { animation_url: 'https://cdn.example.com/a.mov' }],
      ['background_color not RGB', { background_color: 'red' }],
      ['sendable not boolean', { sendable: 'yes' }],
      ['send_friend_only true', { send_friend_only: true }],
      ['group_icon not a URL', { group_icon: 'icon' }],
      ['hashtags not strings', { hashtags: [{ tag: 'x' }] }],
      ['layout unknown', { layout: 'diagonal' }],
      ['external_link over 255', { external_link: long(256) }],
      ['custom_links over 10', { custom_links: links(11) }],
      ['custom_link value over 255', { custom_links: [{ display_name: 'x', value: long(256) }] }],
      ['custom_link without display_name', { custom_links: [{ value: 'https://example.com' }] }],
      ['qr_code over 255', { qr_code: long(256) }],
      ['bar_code over 255', { bar_code: long(256) }],
      ['attributes over 10', { attributes: attributes(11) }],
      ['attribute without value', { attributes: [{ trait_type: 'tier' }] }],
      ['secure.bar_code over 20 counted characters', { secure: { bar_code: '1234-5678 9012-3456 78901' } }],
      ['secure.qr_code over 255', { secure: { qr_code: 'q'.repeat(256) } }],
      ['secure.attributes over 10', { secure: { attributes: attributes(11) } }],
      ['secure.images not file names', { secure: { images: [{ high_resolution: 'https://x/y.png' }] } }],
      ['secure.images entry empty', { secure: { images: [{}] } }],
      ['secure.animations without images', { secure: { animations: [{ high_resolution: '0b4c2c7e-3f59-4a8e-9b1e-8c4c1c8f7a10.mp4' }] } }],
      ['secure file not uploaded by this partner', { secure: { images: [{ high_resolution: '0b4c2c7e-3f59-4a8e-9b1e-8c4c1c8f7a10.png' }] } }],
      ['secure unknown field', { secure: { note: 'x' } }],
      ['status_url not a URL', { status_url: 'ftp://example.com/s' }],
    ];
    for (const [label, overrides] of cases) {
      const response = await partnerCall(t.app, partner.token, 'POST', '/v2/wallet/mint', buildMintPayload(partner, overrides));
      assert.equal(response.statusCode, 400, `${label}: ${response.body}`);
      assert.equal(response.json().code, 400, label);
      assert.equal(response.json().err, 'bad request', label);
    }
    // The bar code limit does not count spaces and hyphens: 20 digits with separators pass.
    const passing = buildMintPayload(partner, { secure: { bar_code: '1234-5678 9012-3456 7890' } });
    const ok = await mintOk(t.app, partner.token, passing);
    assert.equal(ok.minted_count, 1);
    assert.equal(await nextTokenId(partner.contractAddress as Address), 2n, 'only the valid mint reached the chain');
    assert.equal(await mintCount(partner.token), 1);
    const designs = await t.services.store.db.selectFrom('card_designs').select('id').where('partner_id', '=', partner.partner.id).execute();
    assert.equal(designs.length, 1);
  });

  test('wrong PIN: 4006, nothing counted; unknown token 4003', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const response = await partnerCall(t.app, partner.token, 'POST', '/v2/wallet/mint', buildMintPayload(partner, { pin: 'f'.repeat(64) }));
    assert.equal(response.statusCode, 401);
    assert.deepEqual(response.json(), { code: 4006, err: 'invalid pin code' });
    assert.equal(await mintCount(partner.token), 0);
    assert.equal(await nextTokenId(partner.contractAddress as Address), 1n);
    const anonymous = await t.app.inject({ method: 'POST', url: '/v2/wallet/mint', payload: buildMintPayload(partner) });
    assert.deepEqual(anonymous.json(), { code: 4003, err: 'fail to get authorization in header' });
  });

  test('monthly limit: a mint that would pass mint_limit is refused with 4080 before anything is sent', async () => {
    const partner = await signedInPartner(t.app, t.services);
    await t.services.store.db.updateTable('partners').set({ mint_limit: 5 }).where('id', '=', partner.partner.id).execute();
    await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: buildAddresses(3) }));
    const refused = await partnerCall(t.app, partner.token, 'POST', '/v2/wallet/mint', buildMintPayload(partner, { to_address: buildAddresses(3) }));
    assert.equal(refused.statusCode, 400);
    assert.deepEqual(refused.json(), { code: 4080, err: 'mint count monthly limit exceeded' });
    assert.equal(await nextTokenId(partner.contractAddress as Address), 4n);
    assert.equal(await mintCount(partner.token), 3);
    await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: buildAddresses(2) }));
    assert.equal(await mintCount(partner.token), 5);
    // Concurrent mints cannot pass the limit together either.
    await t.services.store.db.updateTable('partners').set({ mint_limit: 8 }).where('id', '=', partner.partner.id).execute();
    const racing = await Promise.all(
      [1, 2, 3].map(() => partnerCall(t.app, partner.token, 'POST', '/v2/wallet/mint', buildMintPayload(partner, { to_address: buildAddresses(2) }))),
    );
    const codes = racing.map((response) => (response.statusCode === 200 ? 200 : response.json().code)).sort();
    assert.deepEqual(codes, [200, 4080, 4080].sort());
    assert.equal(await mintCount(partner.token), 7);
    assert.equal(await nextTokenId(partner.contractAddress as Address), 8n);
  });

  test('a partner that cannot pay the fee: 4202, nothing counted', async () => {
    const partner = await signedInPartner(t.app, t.services);
    await setBalance(t.services, partner.partner.main_address as Address, 0n);
    const response = await partnerCall(t.app, partner.token, 'POST', '/v2/wallet/mint', buildMintPayload(partner));
    assert.equal(response.statusCode, 400, response.body);
    assert.deepEqual(response.json(), { code: 4202, err: 'insufficient funds for the transaction fee' });
    assert.equal(await mintCount(partner.token), 0);
    assert.equal(await nextTokenId(partner.contractAddress as Address), 1n);
  });

  test('A9 and the A1 account object count the cards of the month', async () => {
    const partner = await signedInPartner(t.app, t.services);
    await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: buildAddresses(4) }));
    assert.equal(await mintCount(partner.token), 4);
    const signIn = await t.app.inject({ method: 'POST', url: '/v2/partner/auth', payload: { email: partner.partner.email, password: partner.passwordHash } });
    assert.equal(signIn.json().mint_count, 4);
    // A count of an earlier month reads as 0 and restarts with the next mint.
    await t.services.store.db.updateTable('partners').set({ mint_period: '2000-01' }).where('id', '=', partner.partner.id).execute();
    assert.equal(await mintCount(partner.token), 0);
    await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: buildAddresses(2) }));
    assert.equal(await mintCount(partner.token), 2);
  });
});

describe('A20 receipt', () => {
  test('success for a mined transaction, 4700 for an unknown hash, 400 for a malformed one', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const answer = await mintOk(t.app, partner.token, buildMintPayload(partner));
    const mined = await partnerCall(t.app, partner.token, 'GET', `/v2/wallet/receipt?tx_hash=${answer.hash}`);
    assert.equal(mined.statusCode, 200, mined.body);
    assert.deepEqual(mined.json(), { success: true });
    const unknown = await partnerCall(t.app, partner.token, 'GET', `/v2/wallet/receipt?tx_hash=0x${'ab'.repeat(32)}`);
    assert.equal(unknown.statusCode, 400);
    assert.deepEqual(unknown.json(), { code: 4700, err: 'no transaction receipt' });
    for (const bad of ['0x1234', 'nothex', '']) {
      const malformed = await partnerCall(t.app, partner.token, 'GET', `/v2/wallet/receipt?tx_hash=${bad}`);
      assert.equal(malformed.statusCode, 400);
      assert.deepEqual(withoutMessage(malformed.json()), { code: 400, err: 'bad request' });
    }
    const missing = await partnerCall(t.app, partner.token, 'GET', '/v2/wallet/receipt');
    assert.deepEqual(withoutMessage(missing.json()), { code: 400, err: 'bad request' });
    assert.match(missing.json().message, /tx_hash/);
  });
});
