import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodeDeployData, encodeFunctionData, zeroAddress, type Address } from 'viem';
import { cardNftAbi, cardNftBytecode } from '@wallet-service/contracts';
import type { App } from '../../app.ts';
import { openTestApp, type TestApp, type TestServices } from '../../testing/test-services.ts';
import { ChainCardOwnershipReader, type CardOwnershipReader } from './ownership.ts';
import { IndexedCardOwnershipReader } from './indexed-ownership.ts';
import { queryCards } from './commands.ts';
import { approveAs, BAPP, finalResult, mintCards, prepareKey, signedInMember } from '../testing/support.ts';
import { withoutMessage } from '../../testing/responses.ts';

/** B4: the cards an address holds under one contract, from the card index (or the chain for contracts it does not follow). */
describe('GET /v2/a2a/cards', () => {
  let testApp: TestApp;
  let services: TestServices;
  let app: App;
  let contract: Address;
  let partner: Address;
  let nftId: number;
  let mintTxHash: string;
  let member: Awaited<ReturnType<typeof signedInMember>>;
  const other = '0xc000000000000000000000000000000000000001' as Address;

  before(async () => {
    testApp = await openTestApp();
    ({ services, app } = testApp);
    member = await signedInMember(app, services, { coins: '1' });
    const minted = await mintCards(services, [member.address, member.address, other, member.address]);
    contract = minted.contractAddress;
    partner = minted.partnerAddress.toLowerCase() as Address;
    nftId = minted.nftId;
    mintTxHash = minted.mintTxHash;
    const key = await prepareKey(app, { bapp: BAPP, type: 'send_card', transaction: { contract, to: other, card_id: '2' } });
    assert.equal((await approveAs(app, member.token, key, member.pin)).statusCode, 200);
    assert.equal((await finalResult(app, key)).result.status, 'success');
  });
  after(() => testApp?.cleanup());

  const cards = (query: string) => app.inject({ method: 'GET', url: `/v2/a2a/cards?${query}` });
  const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');

  test('the cards an address holds now, with owner, sender, times and the messenger id field', async () => {
    const response = await cards(`sca=${contract}&eoa=${member.address}`);
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.name, 'Example Cards');
    assert.equal(body.symbol_img, '');
    assert.equal(body.next_cursor, '');
    assert.deepEqual(body.cards.map((card: { card_id: number }) => card.card_id), [1, 4]);
    const first = body.cards[0];
    assert.deepEqual(first, {
      created_at: first.created_at,
      updated_at: first.created_at,
      created_at_format: iso(first.created_at),
      updated_at_format: iso(first.created_at),
      card_id: 1,
      card_uri: `${services.config.publicUrl}/v2/metadata/${nftId}/1`,
      transaction_hash: mintTxHash,
      owner: member.address,
      sender: partner,
      sender_kakao_id: '',
    });
    assert.ok(Math.abs(first.created_at - Date.now() / 1000) < 120);

    const received = (await cards(`sca=${contract}&eoa=${other}&chain=main`)).json();
    assert.deepEqual(received.cards.map((card: { card_id: number }) => card.card_id), [2, 3]);
    const sent = received.cards[0];
    assert.equal(sent.sender, member.address, 'a transferred card names the member who sent it');
    assert.equal(sent.transaction_hash, mintTxHash, 'transaction_hash is the minting transaction');
    assert.ok(sent.updated_at >= sent.created_at);
    assert.equal(received.cards[1].sender, partner);

    const none = (await cards(`sca=${contract}&eoa=0xc000000000000000000000000000000000000002`)).json();
    assert.deepEqual(none, { name: 'Example Cards', symbol_img: '', cards: [], next_cursor: '' });
  });

  test('100 cards a page with an opaque cursor until next_cursor is empty', async () => {
    const holder = '0xc000000000000000000000000000000000000003' as Address;
    const minted = await mintCards(services, Array.from({ length: 150 }, () => holder));
    const first = (await cards(`sca=${minted.contractAddress}&eoa=${holder}`)).json();
    assert.equal(first.cards.length, 100);
    assert.deepEqual(first.cards.map((card: { card_id: number }) => card.card_id), Array.from({ length: 100 }, (_, index) => index + 1));
    assert.notEqual(first.next_cursor, '');
    const second = (await cards(`sca=${minted.contractAddress}&eoa=${holder}&cursor=${first.next_cursor}`)).json();
    assert.deepEqual(second.cards.map((card: { card_id: number }) => card.card_id), Array.from({ length: 50 }, (_, index) => index + 101));
    assert.equal(second.next_cursor, '');
  });

  test('bare { code, err } errors', async () => {
    const expectations: Array<[string, number, { code: number; err: string }]> = [
      [`eoa=${member.address}`, 400, { code: 6405, err: 'invalid contract' }],
      [`sca=0x12&eoa=${member.address}`, 400, { code: 6405, err: 'invalid contract' }],
      [`sca=${other}&eoa=${member.address}`, 400, { code: 6405, err: 'invalid contract' }],
      [`sca=${contract}`, 400, { code: 400, err: 'bad request' }],
      [`sca=${contract}&eoa=me`, 400, { code: 400, err: 'bad request' }],
      [`sca=${contract}&eoa=${member.address}&cursor=nope`, 400, { code: 400, err: 'bad request' }],
      [`sca=${contract}&eoa=${member.address}&cursor=${Buffer.from('c1:x').toString('base64url')}`, 400, { code: 400, err: 'bad request' }],
      [`sca=${contract}&eoa=${member.address}&chain=polygon`, 400, { code: 6417, err: 'the request is not supported with this chain' }],
    ];
    for (const [query, status, body] of expectations) {
      const response = await cards(query);
      assert.deepEqual([response.statusCode, withoutMessage(response.json())], [status, body], query);
    }
  });

  test('the ownership reader is replaceable (the card index takes its place); symbol_img comes from config', async () => {
    const reader: CardOwnershipReader = {
      async listOwnedCards(input) {
        assert.equal(input.afterCardId, null);
        return {
          cards: [{ cardId: 7n, owner: input.owner, sender: partner, mintTransactionHash: `0x${'ab'.repeat(32)}`, createdAt: 1_700_000_000, updatedAt: 1_700_000_100 }],
          hasMore: true,
        };
      },
    };
    const withImage = { ...services, config: { ...services.config, a2a: { ...services.config.a2a, cardImages: { [contract]: 'https://img.example/cards.png' } } } };
    const page = await queryCards(withImage, reader, { sca: contract, eoa: member.address });
    assert.equal(page.symbol_img, 'https://img.example/cards.png');
    assert.deepEqual(page.cards[0], {
      created_at: 1_700_000_000,
      updated_at: 1_700_000_100,
      created_at_format: '2023-11-14T22:13:20Z',
      updated_at_format: '2023-11-14T22:15:00Z',
      card_id: 7,
      card_uri: '',
      transaction_hash: `0x${'ab'.repeat(32)}`,
      owner: member.address,
      sender: partner,
      sender_kakao_id: '',
    });
    assert.notEqual(page.next_cursor, '');
  });

  /** The index reader over a chain reader that records each contract it is asked about. */
  const recordingReader = (onFallback?: (error: Error) => void) => {
    const calls: string[] = [];
    const chainReader: CardOwnershipReader = {
      async listOwnedCards(input) {
        calls.push(input.contract.toLowerCase());
        return new ChainCardOwnershipReader().listOwnedCards(input);
      },
    };
    return { calls, reader: new IndexedCardOwnershipReader(services.cardIndex, services.store.db, chainReader, onFallback) };
  };

  test('a followed contract is answered from the card index, any other contract from the chain', async () => {
    const chain = services.chains.get('main');
    const fellBack: string[] = [];
    const { calls, reader } = recordingReader((error) => fellBack.push(error.message));
    const indexed = await reader.listOwnedCards({ chain, contract, owner: member.address, afterCardId: null, limit: 100 });
    assert.deepEqual(indexed.cards.map((card) => card.cardId), [1n, 4n]);
    assert.equal(indexed.cards[0]!.sender.toLowerCase(), partner, 'a minted card comes from the minting account');
    assert.deepEqual(calls, [], `the partner contract is read from the index (read from the chain because: ${fellBack.join('; ')})`);

    // A CardNFT deployed outside the service: the index does not follow it.
    const deployer = await services.operator.signer();
    const deployment = await services.outbox.submit({
      idempotencyKey: `foreign-nft:${contract}`,
      chain: 'main',
      signer: deployer,
      to: null,
      data: encodeDeployData({ abi: cardNftAbi, bytecode: cardNftBytecode, args: ['Elsewhere', 'ELSE', 'https://example.org/', deployer.address, zeroAddress] }),
    });
    const foreign = (await services.outbox.waitForFinal(deployment.id)).contractAddress!;
    const minted = await services.outbox.submit({
      idempotencyKey: `foreign-mint:${foreign}`,
      chain: 'main',
      signer: deployer,
      to: foreign,
      data: encodeFunctionData({ abi: cardNftAbi, functionName: 'mintBatch', args: [[member.address], true] }),
    });
    assert.equal((await services.outbox.waitForFinal(minted.id)).receiptStatus, 'success');
    const fromChain = await reader.listOwnedCards({ chain, contract: foreign, owner: member.address, afterCardId: null, limit: 100 });
    assert.deepEqual(fromChain.cards.map((card) => card.cardId), [1n]);
    assert.deepEqual(calls, [foreign.toLowerCase()]);
  });

  test('a card contract the service deployed a moment ago, before the index has looked at it, is answered from the index', async () => {
    const chain = services.chains.get('main');
    const { calls, reader } = recordingReader();
    // With the index stopped, nothing takes the new contract up before the query does.
    await services.cardIndex.stop();
    try {
      const fresh = await mintCards(services, [member.address, other]);
      const page = await reader.listOwnedCards({ chain, contract: fresh.contractAddress, owner: member.address, afterCardId: null, limit: 100 });
      assert.deepEqual(page.cards.map((card) => card.cardId), [1n]);
      assert.deepEqual(calls, [], 'the new contract is read from the index, not the chain');
    } finally {
      services.cardIndex.start();
    }
  });
});
