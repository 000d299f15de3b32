import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createWalletClient, encodeFunctionData, http, zeroAddress, type Address, type Hex } from 'viem';
import { cardNftAbi, cardNftBytecode } from '@wallet-service/contracts';
import { callFromOperator, deployFromOperator } from '../../a2a/testing/support.ts';
import type { App } from '../../app.ts';
import type { UnlockedKey } from '../../custody/key-vault.ts';
import { signedInPartner } from '../../partner-api/testing/partner-session.ts';
import type { PartnerRow } from '../../store/schema.ts';
import { buildApprovedPartner } from '../../testing/factories.ts';
import { openTestApp, type TestApp, type TestServices } from '../../testing/test-services.ts';
import { cardUri } from '../card-uri.ts';
import { encodeBappCursor } from './bapp-cursor.ts';
import { listPartnerBapps } from './commands.ts';
import { withoutMessage } from '../../testing/responses.ts';
import { heldRead } from '../../testing/held-read.ts';
import type { Store } from '../../store/database.ts';

interface Minter {
  partner: PartnerRow;
  pinHash: string;
  contractAddress: Address;
  nftId: number;
}

interface MintBatch {
  txHash: Hex;
  /** Epoch seconds of the block that mined it. */
  blockTime: number;
}

interface Card {
  created_at: number;
  updated_at: number;
  card_id: number;
  card_uri: string;
  transaction_hash: string;
}

const ids = (cards: Card[]) => cards.map((card) => card.card_id);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

/** A12 and A13: the cards the partner's own address holds, from the card index, on a real node and store. */
describe('card lists: A12 GET /v2/wallet/bapp and A13 GET /v2/wallet/nft/:nft_id', () => {
  let testApp: TestApp;
  let services: TestServices;
  let app: App;
  /** The partner whose lists are read: 150 of its own cards, 3 of another partner's, 1 of a followed foreign contract. */
  let holder: Awaited<ReturnType<typeof signedInPartner>>;
  let other: Minter;
  let otherMint: MintBatch;
  let holderMint: MintBatch;

  before(async () => {
    testApp = await openTestApp();
    ({ services, app } = testApp);
    holder = await signedInPartner(app, services);
    other = await buildApprovedPartner(services);
    await services.store.db.updateTable('partners').set({ service_name: 'Other Cards' }).where('id', '=', other.partner.id).execute();
    const to = holder.partner.main_address as Address;
    holderMint = await mintAs(holder, Array.from({ length: 150 }, () => to));
    otherMint = await mintAs(other, [to, to, to]);

    // A contract the card index follows but this service did not deploy for a partner.
    const operator = await services.operator.signer();
    const foreign = await deployFromOperator(services, { abi: cardNftAbi, bytecode: cardNftBytecode }, [
      'Foreign',
      'FRN',
      'https://foreign.example/',
      operator.address,
      zeroAddress,
    ]);
    await services.cardIndex.follow('main', foreign);
    await callFromOperator(services, foreign, encodeFunctionData({ abi: cardNftAbi, functionName: 'mintBatch', args: [[to], true] }));
  });
  after(() => testApp?.cleanup());

  /** The partner's signing key, unlocked with its PIN once per partner. */
  const signers = new Map<string, Promise<UnlockedKey>>();
  function signerOf(minter: Minter): Promise<UnlockedKey> {
    let signer = signers.get(minter.partner.id);
    if (!signer) signers.set(minter.partner.id, (signer = services.vault.unlock(minter.partner.key_id, minter.pinHash)));
    return signer;
  }

  /** Mints one card to each of `to` through the outbox with the minter's key, as A7 does. */
  async function mintAs(minter: Minter, to: Address[]): Promise<MintBatch> {
    const signer = await signerOf(minter);
    const data = encodeFunctionData({ abi: cardNftAbi, functionName: 'mintBatch', args: [to, true] });
    const { id } = await services.outbox.submit({ idempotencyKey: `test-mint:${randomUUID()}`, chain: 'main', signer, to: minter.contractAddress, data });
    const mined = await services.outbox.waitForFinal(id);
    assert.equal(mined.receiptStatus, 'success');
    const block = await services.chains.get('main').client.getBlock({ blockNumber: BigInt(mined.blockNumber!) });
    return { txHash: mined.txHash, blockTime: Number(block.timestamp) };
  }

  const get = (url: string, token: string | undefined) =>
    app.inject({ method: 'GET', url, ...(token === undefined ? {} : { headers: { authorization: token } }) });

  async function ok(url: string, token: string) {
    const response = await get(url, token);
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    return response.json();
  }

  /** The card entry the lists must show for a card minted by `batch` and never moved. */
  const mintedCard = (nftId: number, cardId: number, batch: MintBatch): Card => ({
    created_at: batch.blockTime,
    updated_at: batch.blockTime,
    card_id: cardId,
    card_uri: cardUri(services.config.publicUrl, nftId, cardId),
    transaction_hash: batch.txHash,
  });

  test('A12 groups the held cards by BApp; cards_next_cursor continues in A13', async () => {
    const body = await ok('/v2/wallet/bapp', holder.token);
    assert.equal(body.next_cursor, '');
    assert.equal(body.bapps.length, 2, 'the followed foreign contract is not a BApp of this service');
    const [own, received] = body.bapps;

    const { cards: ownCards, cards_next_cursor: ownCursor, ...ownEntry } = own;
    assert.deepEqual(ownEntry, {
      id: holder.nftId,
      name: 'Example Cards',
      bapp_img: '',
      category_id: 0,
      nft_order_no: 1,
      summary: 'Example Cards',
      card_count: 150,
      nft_id: holder.nftId,
    });
    assert.deepEqual(ownCards, range(1, 100).map((id) => mintedCard(holder.nftId, id, holderMint)));
    assert.notEqual(ownCursor, '');

    assert.deepEqual(received, {
      id: other.nftId,
      name: 'Other Cards',
      bapp_img: '',
      category_id: 0,
      nft_order_no: 2,
      summary: 'Other Cards',
      card_count: 3,
      nft_id: other.nftId,
      cards: range(1, 3).map((id) => mintedCard(other.nftId, id, otherMint)),
      cards_next_cursor: '',
    });

    const rest = await ok(`/v2/wallet/nft/${holder.nftId}?cursor=${ownCursor}`, holder.token);
    assert.deepEqual(rest, {
      name: 'Example Cards',
      symbol_img: '',
      cards: range(101, 150).map((id) => mintedCard(holder.nftId, id, holderMint)),
      next_cursor: '',
    });
    const now = Date.now() / 1000;
    assert.ok(Math.abs(rest.cards[0]!.created_at - now) < 3600, 'card times are epoch seconds');
  });

  test('A12 pages BApps with a keyset cursor; nft_order_no counts across pages', async () => {
    const first = await listPartnerBapps(services, holder.partner, { pageSize: 1 });
    assert.deepEqual(
      first.bapps.map((bapp) => [bapp.nft_id, bapp.nft_order_no]),
      [[holder.nftId, 1]],
    );
    assert.equal(first.next_cursor, encodeBappCursor(holder.nftId));
    const second = await listPartnerBapps(services, holder.partner, { pageSize: 1, cursor: first.next_cursor });
    assert.deepEqual(
      second.bapps.map((bapp) => [bapp.nft_id, bapp.nft_order_no, bapp.card_count]),
      [[other.nftId, 2, 3]],
    );
    assert.equal(second.next_cursor, '');

    const viaHttp = await ok(`/v2/wallet/bapp?cursor=${first.next_cursor}`, holder.token);
    assert.deepEqual(viaHttp, second, 'the HTTP answer past the first BApp is that page');
    const stranger = await signedInPartner(app, services);
    assert.deepEqual(await ok('/v2/wallet/bapp', stranger.token), { bapps: [], next_cursor: '' });
  });

  test('A13 pages 1,000 cards, each once, ascending, while more are minted', async () => {
    const minter = await signedInPartner(app, services);
    const to = minter.partner.main_address as Address;
    const batches: MintBatch[] = [];
    for (let batch = 0; batch < 4; batch++) batches.push(await mintAs(minter, Array.from({ length: 250 }, () => to)));

    let minting = true;
    let paged = false;
    const pages: Card[][] = [];
    // Each mint after the first waits for one more page: the mints and the pages interleave whatever
    // either costs (the first page, which catches the card index up, may outlast all five mints).
    const more = (async () => {
      try {
        for (let batch = 0; batch < 5; batch++) {
          while (pages.length < batch && !paged) await sleep(5);
          await mintAs(minter, Array.from({ length: 40 }, () => to));
        }
      } finally {
        minting = false;
      }
    })();
    let cursor = '';
    let mintedWhilePaging = false;
    try {
      do {
        const body = await ok(`/v2/wallet/nft/${minter.nftId}${cursor ? `?cursor=${cursor}` : ''}`, minter.token);
        assert.equal(body.name, 'Example Cards');
        pages.push(body.cards);
        if (minting) mintedWhilePaging = true;
        cursor = body.next_cursor;
      } while (cursor);
    } finally {
      paged = true;
    }
    await more;
    assert.ok(mintedWhilePaging, 'mints ran while the pages were read');

    const seen = pages.flat();
    for (let index = 1; index < seen.length; index++) assert.ok(seen[index]!.card_id > seen[index - 1]!.card_id, 'ascending, no card twice');
    assert.ok(pages.slice(0, -1).every((page) => page.length === 100), 'every page but the last holds 100');
    assert.deepEqual(
      seen.slice(0, 1000),
      range(1, 1000).map((id) => mintedCard(minter.nftId, id, batches[Math.floor((id - 1) / 250)]!)),
    );

    // Once the mints are done: isAll gives every card in one answer, the same as paging to the end.
    const all = await ok(`/v2/wallet/nft/${minter.nftId}?isAll=true`, minter.token);
    assert.equal(all.next_cursor, '');
    assert.deepEqual(ids(all.cards), range(1, 1200));
    const again: Card[] = [];
    cursor = '';
    do {
      const body = await ok(`/v2/wallet/nft/${minter.nftId}?isAll=false${cursor ? `&cursor=${cursor}` : ''}`, minter.token);
      again.push(...body.cards);
      cursor = body.next_cursor;
    } while (cursor);
    assert.deepEqual(again, all.cards);
    // The specification writes the value as TRUE; any case is taken.
    for (const spelling of ['TRUE', 'True']) {
      assert.deepEqual(await ok(`/v2/wallet/nft/${minter.nftId}?isAll=${spelling}`, minter.token), all, spelling);
    }
    const firstPage = await ok(`/v2/wallet/nft/${minter.nftId}?isAll=FALSE`, minter.token);
    assert.deepEqual(firstPage.cards, all.cards.slice(0, 100));
  });

  test('a card its holder sends on chain with a plain wallet client leaves A13 within 5 s', async () => {
    const sender = await signedInPartner(app, services);
    const from = sender.partner.main_address as Address;
    const recipient = other.partner.main_address as Address;
    await mintAs(sender, [from, from, from]);
    assert.deepEqual(ids((await ok(`/v2/wallet/nft/${sender.nftId}`, sender.token)).cards), [1, 2, 3]);

    const chain = services.chains.get('main');
    const { account } = await signerOf(sender);
    const wallet = createWalletClient({ account, chain: chain.viemChain, transport: http(chain.rpcUrl) });
    const hash = await wallet.writeContract({
      address: sender.contractAddress,
      abi: cardNftAbi,
      functionName: 'transferFrom',
      args: [from, recipient, 2n],
    });
    const receipt = await chain.client.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    const sentAt = Date.now();

    let listed = [1, 2, 3];
    while (listed.includes(2)) {
      assert.ok(Date.now() - sentAt < 5_000, `card 2 still listed after ${Date.now() - sentAt} ms`);
      listed = ids((await ok(`/v2/wallet/nft/${sender.nftId}`, sender.token)).cards);
      if (listed.includes(2)) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual(listed, [1, 3]);
    const [entry] = (await ok('/v2/wallet/bapp', sender.token)).bapps;
    assert.deepEqual([entry.nft_id, entry.card_count, ids(entry.cards)], [sender.nftId, 2, [1, 3]]);

    const received = await services.cardIndex.listByOwner({ chain: 'main', owner: recipient, contract: sender.contractAddress, limit: 100 });
    assert.deepEqual(
      received.cards.map((card) => [card.tokenId, card.sender, card.lastTxHash]),
      [[2, from.toLowerCase(), hash]],
    );
  });

  test(
    "A12 reads each entry's card_count and cards as of one moment, though a card moves while it reads",
    // On SQLite the store's one connection is the list's until it has read: the index cannot commit in between.
    { skip: process.env.WALLET_TEST_STORE === 'postgres' ? false : 'PostgreSQL only: run with WALLET_TEST_STORE=postgres' },
    async () => {
      const sender = await signedInPartner(app, services);
      const from = sender.partner.main_address as Address;
      await mintAs(sender, [from, from, from]);
      // The list's first read (the BApps and their counts) is held while a card moves and the index records it.
      const held = heldRead((row) => row.nftId === sender.nftId && 'cardCount' in row);
      const store: Store = { ...services.store, readSnapshot: (work) => services.store.readSnapshot((db) => work(db.withPlugin(held.plugin))) };
      const holding = held.arm();
      const listing = listPartnerBapps({ ...services, store }, sender.partner, {});
      await Promise.race([holding, listing.then(() => assert.fail('A12 answered without reading through a snapshot'))]);

      const chain = services.chains.get('main');
      const { account } = await signerOf(sender);
      const wallet = createWalletClient({ account, chain: chain.viemChain, transport: http(chain.rpcUrl) });
      const hash = await wallet.writeContract({ address: sender.contractAddress, abi: cardNftAbi, functionName: 'transferFrom', args: [from, other.partner.main_address as Address, 2n] });
      const receipt = await chain.client.waitForTransactionReceipt({ hash });
      await services.cardIndex.waitUntilIndexed('main', receipt.blockNumber);
      held.release();

      const entry = (await listing).bapps.find((bapp) => bapp.nft_id === sender.nftId);
      assert.deepEqual([entry?.card_count, ids(entry?.cards ?? [])], [3, [1, 2, 3]], 'as the list stood when it began');
      const after = (await ok('/v2/wallet/bapp', sender.token)).bapps.find((bapp: { nft_id: number }) => bapp.nft_id === sender.nftId);
      assert.deepEqual([after.card_count, ids(after.cards)], [2, [1, 3]]);
    },
  );

  test('refusals: no token, isAll with a cursor, bad cursors, unknown nft_id, bad values', async () => {
    const badRequest = { code: 400, err: 'bad request' };
    const first = await ok(`/v2/wallet/nft/${holder.nftId}`, holder.token);
    const ownCursor: string = first.next_cursor;
    assert.notEqual(ownCursor, '');
    const expectations: Array<[string, string | undefined, number, { code: number; err: string }]> = [
      ['/v2/wallet/bapp', undefined, 401, { code: 4003, err: 'fail to get authorization in header' }],
      [`/v2/wallet/nft/${holder.nftId}`, undefined, 401, { code: 4003, err: 'fail to get authorization in header' }],
      [`/v2/wallet/nft/${holder.nftId}?isAll=true&cursor=${ownCursor}`, holder.token, 400, badRequest],
      [`/v2/wallet/nft/${holder.nftId}?cursor=nope`, holder.token, 400, badRequest],
      [`/v2/wallet/nft/${holder.nftId}?cursor=${encodeBappCursor(holder.nftId)}`, holder.token, 400, badRequest],
      [`/v2/wallet/nft/${other.nftId}?cursor=${ownCursor}`, holder.token, 400, badRequest],
      [`/v2/wallet/bapp?cursor=${ownCursor}`, holder.token, 400, badRequest],
      ['/v2/wallet/bapp?cursor=nope', holder.token, 400, badRequest],
      [`/v2/wallet/bapp?cursor=${Buffer.from('bapp:01').toString('base64url')}`, holder.token, 400, badRequest],
      [`/v2/wallet/nft/${holder.nftId}?isAll=yes`, holder.token, 400, badRequest],
      ['/v2/wallet/nft/abc', holder.token, 400, badRequest],
      ['/v2/wallet/nft/99999', holder.token, 404, { code: 404, err: 'not Found' }],
    ];
    for (const [url, token, status, body] of expectations) {
      const response = await get(url, token);
      assert.deepEqual([response.statusCode, withoutMessage(response.json())], [status, body], url);
    }
    // A refusal says what was refused: a command's check by its detail, a schema's by the field.
    const both = await get(`/v2/wallet/nft/${holder.nftId}?isAll=true&cursor=${ownCursor}`, holder.token);
    assert.equal(both.json().message, 'isAll cannot be used with cursor');
    assert.match((await get(`/v2/wallet/nft/${holder.nftId}?isAll=yes`, holder.token)).json().message, /isAll/);
    // isAll=false is no isAll: the cursor pages on.
    assert.deepEqual(ids((await ok(`/v2/wallet/nft/${holder.nftId}?isAll=false&cursor=${ownCursor}`, holder.token)).cards), range(101, 150));
  });
});
