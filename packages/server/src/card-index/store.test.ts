import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { zeroAddress } from 'viem';
import type { Db } from '../store/database.ts';
import { availableTestStoreKinds, openTestStore, type TestStore } from '../testing/test-store.ts';
import { applyTransferRange, rewindCardIndex } from './store.ts';
import { decodeCardCursor, encodeCardCursor, encodeContractCursor, InvalidCardCursorError } from './page-cursor.ts';
import { getIndexedCard, listCardsByOwner, listContractsHeldBy } from './store.ts';
import type { CardTransfer } from './transfer-logs.ts';

const CHAIN = 'main';
const contractA = `0x${'a'.repeat(40)}`;
const contractB = `0x${'b'.repeat(40)}`;
const alice = `0x${'1'.repeat(40)}`;
const bob = `0x${'2'.repeat(40)}`;
const carol = `0x${'3'.repeat(40)}`;

function transfer(block: number, logIndex: number, contract: string, tokenId: number, from: string, to: string): CardTransfer {
  return {
    contract,
    tokenId,
    from,
    to,
    txHash: `0x${block.toString(16).padStart(4, '0')}${logIndex.toString(16).padStart(60, '0')}`,
    blockNumber: block,
    logIndex,
    blockTime: 1_700_000_000 + block,
  };
}

const hashOf = (block: number) => `0x${block.toString(16).padStart(64, '0')}`;

async function follow(db: Db, contracts: string[]): Promise<void> {
  await db
    .insertInto('card_index_cursors')
    .values(contracts.map((contract) => ({ chain: CHAIN, contract, last_block: 0, last_block_hash: null, updated_ms: 0 })))
    .execute();
}

/** Applies each block of `transfers` as its own range for both contracts, from the cursor on. */
async function applyBlocks(db: Db, fromBlock: number, toBlock: number, transfers: CardTransfer[]): Promise<void> {
  for (let block = fromBlock; block <= toBlock; block++) {
    const applied = await applyTransferRange(db, {
      chain: CHAIN,
      contracts: [contractA, contractB],
      fromBlock: block,
      toBlock: block,
      toBlockHash: hashOf(block),
      transfers: transfers.filter((entry) => entry.blockNumber === block),
    });
    assert.equal(applied, true, `block ${block} applied`);
  }
}

/** indexed_card_holdings must always equal a count over indexed_cards. */
async function assertHoldingsConsistent(db: Db): Promise<void> {
  const counted = await db
    .selectFrom('indexed_cards')
    .select(['owner', 'contract', (eb) => eb.fn.countAll().as('count')])
    .where('chain', '=', CHAIN)
    .where('burned', '=', 0)
    .groupBy(['owner', 'contract'])
    .execute();
  const held = await db.selectFrom('indexed_card_holdings').selectAll().where('chain', '=', CHAIN).execute();
  const normalise = (rows: Array<{ owner: string; contract: string; count: number }>) =>
    rows.map((row) => `${row.owner}:${row.contract}:${row.count}`).sort();
  assert.deepEqual(
    normalise(held.map((row) => ({ owner: row.owner, contract: row.contract, count: Number(row.card_count) }))),
    normalise(counted.map((row) => ({ owner: row.owner, contract: row.contract, count: Number(row.count) }))),
  );
}

async function snapshot(db: Db) {
  const cards = await db.selectFrom('indexed_cards').selectAll().orderBy('contract').orderBy('token_id').execute();
  const holdings = await db.selectFrom('indexed_card_holdings').selectAll().orderBy('owner').orderBy('contract').execute();
  return { cards, holdings };
}

for (const kind of availableTestStoreKinds()) {
  describe(`card index writes and queries (${kind})`, () => {
    let testStore: TestStore;
    let db: Db;

    before(async () => {
      testStore = await openTestStore(kind);
      db = testStore.store.db;
    });
    after(async () => testStore?.cleanup());

    // Blocks 1-4: three mints, a transfer, a burn; block 5 nothing.
    const history = [
      transfer(1, 0, contractA, 1, zeroAddress, alice),
      transfer(1, 1, contractA, 2, zeroAddress, alice),
      transfer(1, 2, contractA, 3, zeroAddress, bob),
      transfer(2, 0, contractB, 1, zeroAddress, alice),
      transfer(3, 4, contractA, 2, alice, bob),
      transfer(3, 5, contractA, 2, bob, carol),
      transfer(4, 0, contractA, 3, bob, zeroAddress),
    ];

    test('mints insert, transfers move, burns mark; times and hashes come from the logs', async () => {
      await follow(db, [contractA, contractB]);
      await applyBlocks(db, 1, 5, history);

      const minted = await getIndexedCard(db, CHAIN, contractA, 1);
      assert.deepEqual(minted, {
        chain: CHAIN,
        contract: contractA,
        tokenId: 1,
        owner: alice,
        sender: zeroAddress,
        mintTxHash: history[0]!.txHash,
        lastTxHash: history[0]!.txHash,
        mintedAt: 1_700_000_001,
        mintedBlock: 1,
        updatedAt: 1_700_000_001,
        updatedBlock: 1,
        burned: false,
      });
      const moved = await getIndexedCard(db, CHAIN, contractA, 2);
      assert.equal(moved?.owner, carol);
      assert.equal(moved?.sender, bob);
      assert.equal(moved?.mintTxHash, history[1]!.txHash);
      assert.equal(moved?.lastTxHash, history[5]!.txHash);
      assert.equal(moved?.updatedAt, 1_700_000_003);
      const burned = await getIndexedCard(db, CHAIN, contractA, 3);
      assert.equal(burned?.burned, true);
      assert.equal(burned?.owner, zeroAddress);
      assert.equal(burned?.sender, bob);

      const bobs = await listCardsByOwner(db, { chain: CHAIN, owner: bob, limit: 10 });
      assert.deepEqual(bobs, { cards: [], nextCursor: '' });
      const alices = await listCardsByOwner(db, { chain: CHAIN, owner: alice.toUpperCase().replace('0X', '0x'), limit: 10 });
      assert.deepEqual(alices.cards.map((card) => [card.contract, card.tokenId]), [[contractA, 1], [contractB, 1]]);
      assert.deepEqual(await listContractsHeldBy(db, { chain: CHAIN, owner: alice, limit: 10 }), {
        contracts: [
          { contract: contractA, cardCount: 1 },
          { contract: contractB, cardCount: 1 },
        ],
        nextCursor: '',
      });
      await assertHoldingsConsistent(db);
    });

    test('a range whose cursor moved is refused; applying the same logs again changes nothing', async () => {
      const state = await snapshot(db);
      const stale = await applyTransferRange(db, {
        chain: CHAIN,
        contracts: [contractA, contractB],
        fromBlock: 3,
        toBlock: 5,
        toBlockHash: hashOf(5),
        transfers: history.filter((entry) => entry.blockNumber >= 3),
      });
      assert.equal(stale, false);
      // The same logs applied a second time (as two processes that both read the range would) are
      // recognised by their positions: the state stays the same.
      await db.updateTable('card_index_cursors').set({ last_block: 0 }).execute();
      await db.deleteFrom('indexed_card_transfers').execute();
      await applyBlocks(db, 1, 5, history);
      assert.deepEqual(await snapshot(db), state);
      await assertHoldingsConsistent(db);
    });

    test('a rewind undoes exactly the blocks after the fork', async () => {
      const atFork = await snapshot(db);
      const later = [
        transfer(6, 0, contractA, 4, zeroAddress, alice),
        transfer(6, 1, contractA, 5, zeroAddress, carol),
        transfer(7, 0, contractA, 1, alice, bob),
        transfer(8, 0, contractA, 2, carol, zeroAddress),
        transfer(8, 1, contractB, 1, alice, carol),
      ];
      await applyBlocks(db, 6, 9, later);
      assert.equal((await getIndexedCard(db, CHAIN, contractA, 1))?.owner, bob);
      assert.equal((await getIndexedCard(db, CHAIN, contractA, 2))?.burned, true);

      const rederived = await rewindCardIndex(db, CHAIN, 5, hashOf(5));
      assert.equal(rederived, 5);
      assert.deepEqual(await snapshot(db), atFork);
      const cursors = await db.selectFrom('card_index_cursors').selectAll().execute();
      assert.deepEqual(cursors.map((cursor) => [Number(cursor.last_block), cursor.last_block_hash]), [[5, hashOf(5)], [5, hashOf(5)]]);
      const blocks = await db.selectFrom('card_index_blocks').select('block_number').orderBy('block_number').execute();
      assert.deepEqual(blocks.map((row) => Number(row.block_number)), [1, 2, 3, 4, 5]);
      await assertHoldingsConsistent(db);

      // The other fork's blocks apply from there as usual.
      await applyBlocks(db, 6, 6, [transfer(6, 3, contractA, 4, zeroAddress, carol)]);
      assert.equal((await getIndexedCard(db, CHAIN, contractA, 4))?.owner, carol);
      assert.equal(await getIndexedCard(db, CHAIN, contractA, 5), undefined);

      // A fork below everything stored re-indexes from genesis.
      await rewindCardIndex(db, CHAIN, -1, null);
      assert.deepEqual((await snapshot(db)).cards, []);
      assert.deepEqual((await snapshot(db)).holdings, []);
      await applyBlocks(db, 0, 5, history);
      assert.deepEqual(await snapshot(db), atFork);
    });

    test('keyset pages: every card once, in (contract, id) order, across contracts', async () => {
      const owner = `0x${'4'.repeat(40)}`;
      const mints: CardTransfer[] = [];
      for (let tokenId = 100; tokenId < 350; tokenId++) {
        mints.push(transfer(10, tokenId, tokenId % 3 === 0 ? contractB : contractA, tokenId, zeroAddress, tokenId % 5 === 0 ? carol : owner));
      }
      await applyBlocks(db, 6, 10, mints);
      const expected = mints
        .filter((entry) => entry.to === owner)
        .map((entry) => `${entry.contract}:${entry.tokenId}`)
        .sort((a, b) => (a.slice(0, 42) === b.slice(0, 42) ? Number(a.slice(43)) - Number(b.slice(43)) : a < b ? -1 : 1));
      const seen: string[] = [];
      let cursor = '';
      let pages = 0;
      do {
        const page = await listCardsByOwner(db, { chain: CHAIN, owner, cursor, limit: 30 });
        seen.push(...page.cards.map((card) => `${card.contract}:${card.tokenId}`));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor);
      assert.deepEqual(seen, expected);
      assert.equal(pages, Math.ceil(expected.length / 30));

      const onlyB = await listCardsByOwner(db, { chain: CHAIN, owner, contract: contractB, limit: 1000 });
      assert.deepEqual(
        onlyB.cards.map((card) => `${card.contract}:${card.tokenId}`),
        expected.filter((key) => key.startsWith(contractB)),
      );
      assert.equal(onlyB.nextCursor, '');
      const firstOfB = await listCardsByOwner(db, { chain: CHAIN, owner, contract: contractB, limit: 5 });
      const restOfB = await listCardsByOwner(db, { chain: CHAIN, owner, contract: contractB, cursor: firstOfB.nextCursor, limit: 1000 });
      assert.deepEqual([...firstOfB.cards, ...restOfB.cards], onlyB.cards);
      await assert.rejects(
        listCardsByOwner(db, { chain: CHAIN, owner, contract: contractA, cursor: firstOfB.nextCursor, limit: 5 }),
        InvalidCardCursorError,
      );

      const firstContract = await listContractsHeldBy(db, { chain: CHAIN, owner, limit: 1 });
      assert.deepEqual(firstContract.contracts, [{ contract: contractA, cardCount: expected.filter((key) => key.startsWith(contractA)).length }]);
      const secondContract = await listContractsHeldBy(db, { chain: CHAIN, owner, cursor: firstContract.nextCursor, limit: 1 });
      assert.deepEqual(secondContract, {
        contracts: [{ contract: contractB, cardCount: expected.filter((key) => key.startsWith(contractB)).length }],
        nextCursor: '',
      });
      await assertHoldingsConsistent(db);
    });

    test('malformed cursors and arguments are refused', async () => {
      const owner = alice;
      const valid = encodeCardCursor({ contract: contractA, tokenId: 7 });
      assert.deepEqual(decodeCardCursor(valid), { contract: contractA, tokenId: 7 });
      const malformed = [
        'not base64!',
        `${valid}=`,
        Buffer.from('card:0x1234:7').toString('base64url'),
        Buffer.from(`card:${contractA}:-1`).toString('base64url'),
        Buffer.from(`card:${contractA}:07`).toString('base64url'),
        Buffer.from(`card:${contractA}:99999999999999999`).toString('base64url'),
        Buffer.from(`card:${contractA.toUpperCase()}:7`).toString('base64url'),
        encodeContractCursor(contractA),
        'x'.repeat(300),
      ];
      for (const cursor of malformed) {
        await assert.rejects(listCardsByOwner(db, { chain: CHAIN, owner, cursor, limit: 10 }), InvalidCardCursorError, cursor);
      }
      await assert.rejects(listContractsHeldBy(db, { chain: CHAIN, owner, cursor: valid, limit: 10 }), InvalidCardCursorError);
      await assert.rejects(listCardsByOwner(db, { chain: CHAIN, owner, limit: 0 }), RangeError);
      await assert.rejects(listCardsByOwner(db, { chain: CHAIN, owner, limit: 1001 }), RangeError);
      await assert.rejects(listCardsByOwner(db, { chain: CHAIN, owner: 'nobody', limit: 10 }), TypeError);
    });
  });
}
