import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MethodNotFoundRpcError, parseEther, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import type { ChainContext } from '../chain/chains.ts';
import type { OutboxRow } from '../store/schema.ts';
import { openTestServices, type TestServices } from '../testing/test-services.ts';
import { minedNonceCounts, receiptsOf } from './receipts.ts';

const FROM = '0xaa00000000000000000000000000000000000000';

function row(index: number): OutboxRow {
  return { id: `row-${index}`, chain: 'main', from_address: FROM, nonce: index, created_ms: index, tx_hash: `0x${String(index).padStart(64, '0')}` } as unknown as OutboxRow;
}

/** A node's raw receipt of `row` in block `block` (hash `0xb<block>`). */
function rawReceipt(row: OutboxRow, block: number, blockHash = `0x${`b${block}`.padStart(64, '0')}`) {
  return {
    transactionHash: row.tx_hash,
    blockNumber: `0x${block.toString(16)}`,
    blockHash,
    status: '0x1',
    gasUsed: '0x5208',
    cumulativeGasUsed: '0x5208',
    effectiveGasPrice: '0x1',
    contractAddress: null,
    logs: [],
    logsBloom: `0x${'0'.repeat(512)}`,
    from: FROM,
    to: FROM,
    transactionIndex: '0x0',
    type: '0x2',
  };
}

/** A chain whose node holds `blocks` (block number -> rows), recording each call by method. */
function chainOf(
  blocks: Map<number, OutboxRow[]>,
  calls: string[],
  options: { blockReceipts?: 'missing' | { blockHash: string }; headHashes?: Map<number, string> } = {},
): ChainContext {
  const blockOf = (hash: string) => [...blocks].find(([, rows]) => rows.some((row) => row.tx_hash === hash))?.[0];
  const request = async ({ method, params }: { method: string; params: unknown[] }) => {
    calls.push(method);
    if (method === 'eth_getBlockReceipts') {
      if (options.blockReceipts === 'missing') throw new MethodNotFoundRpcError(new Error('the method eth_getBlockReceipts does not exist'));
      const number = Number(BigInt(params[0] as string));
      const blockHash = typeof options.blockReceipts === 'object' ? options.blockReceipts.blockHash : undefined;
      return (blocks.get(number) ?? []).map((mined) => rawReceipt(mined, number, blockHash));
    }
    throw new Error(`unexpected ${method}`);
  };
  const getTransactionReceipt = async ({ hash }: { hash: Hex }) => {
    calls.push('eth_getTransactionReceipt');
    const number = blockOf(hash);
    if (number === undefined) throw Object.assign(new Error('not found'), { name: 'TransactionReceiptNotFoundError' });
    return { transactionHash: hash, blockNumber: BigInt(number), blockHash: `0x${`b${number}`.padStart(64, '0')}`, status: 'success', gasUsed: 21_000n, contractAddress: null, logs: [] };
  };
  /** The chain's block at a height: its hash `0xb<number>` unless `headHashes` says another replaced it. */
  const getBlock = async ({ blockNumber }: { blockNumber: bigint }) => {
    calls.push('eth_getBlockByNumber');
    const number = Number(blockNumber);
    return { number: blockNumber, hash: options.headHashes?.get(number) ?? `0x${`b${number}`.padStart(64, '0')}` };
  };
  return { name: 'main', client: { request, getTransactionReceipt, getBlock } } as unknown as ChainContext;
}

const allMined = new Map([[`main:${FROM}`, 100]]);

test('many receipts due on a chain are read a block at a time: two calls a block, whatever it holds', async () => {
  const rows = Array.from({ length: 16 }, (_, index) => row(index));
  const calls: string[] = [];
  const chain = chainOf(new Map([[5, rows.slice(0, 8)], [6, rows.slice(8)]]), calls);
  const receipts = await receiptsOf({ get: () => chain }, rows, allMined);
  assert.deepEqual(receipts.map((receipt) => Number(receipt?.blockNumber)), [...Array(8).fill(5), ...Array(8).fill(6)]);
  assert.ok(receipts.every((receipt) => receipt?.status === 'success' && receipt.gasUsed === 21_000n));
  assert.deepEqual(calls, ['eth_getTransactionReceipt', 'eth_getBlockReceipts', 'eth_getTransactionReceipt', 'eth_getBlockReceipts']);
});

test('a few receipts are asked one at a time; a row not mined has none; a row above its mined count is not asked for', async () => {
  const rows = Array.from({ length: 4 }, (_, index) => row(index));
  const calls: string[] = [];
  const chain = chainOf(new Map([[5, rows.slice(0, 2)]]), calls);
  const receipts = await receiptsOf({ get: () => chain }, rows, new Map([[`main:${FROM}`, 3]]));
  assert.deepEqual(receipts.map((receipt) => receipt && Number(receipt.blockNumber)), [5, 5, undefined, undefined]);
  assert.deepEqual(calls, Array(3).fill('eth_getTransactionReceipt'));
});

test("receipts of another block than the one named (a reorg between the calls) are not taken; a node without eth_getBlockReceipts is asked one at a time from then on", async () => {
  const rows = Array.from({ length: 10 }, (_, index) => row(index));
  const calls: string[] = [];
  const reorged = chainOf(new Map([[5, rows]]), calls, { blockReceipts: { blockHash: `0x${'c'.repeat(64)}` } });
  const receipts = await receiptsOf({ get: () => reorged }, rows, allMined);
  assert.ok(receipts.every((receipt) => receipt?.blockHash === `0x${'b5'.padStart(64, '0')}`), 'each from its own lookup');
  assert.equal(calls.filter((method) => method === 'eth_getTransactionReceipt').length, 10);

  const missing = chainOf(new Map([[5, rows]]), calls, { blockReceipts: 'missing' });
  calls.length = 0;
  assert.equal((await receiptsOf({ get: () => missing }, rows, allMined)).filter(Boolean).length, 10);
  assert.equal(calls.filter((method) => method === 'eth_getBlockReceipts').length, 1);
  calls.length = 0;
  await receiptsOf({ get: () => missing }, rows, allMined);
  assert.deepEqual(calls, Array(10).fill('eth_getTransactionReceipt'), 'not asked again');
});

test('a block read whole is kept: the next pass takes the rest of it from there once the node shows the block still holds; a block replaced since is read again', async () => {
  // A block holding more of ours than a pass reads: the first pass reads it whole for half of them.
  const rows = Array.from({ length: 20 }, (_, index) => row(index));
  const calls: string[] = [];
  const headHashes = new Map<number, string>();
  const chain = chainOf(new Map([[5, rows]]), calls, { headHashes });
  await receiptsOf({ get: () => chain }, rows.slice(0, 10), allMined);
  assert.deepEqual(calls, ['eth_getTransactionReceipt', 'eth_getBlockReceipts']);
  calls.length = 0;
  const rest = await receiptsOf({ get: () => chain }, rows.slice(10), allMined);
  assert.deepEqual(calls, ['eth_getBlockByNumber'], 'the block is not read again');
  assert.ok(rest.every((receipt, index) => receipt?.transactionHash === rows[10 + index]!.tx_hash && Number(receipt.blockNumber) === 5));
  // A reorg replaced block 5 (the node now names another hash at its height): the kept receipts go.
  headHashes.set(5, `0x${'c'.repeat(64)}`);
  calls.length = 0;
  await receiptsOf({ get: () => chain }, rows.slice(10), allMined);
  assert.deepEqual(calls, ['eth_getBlockByNumber', 'eth_getTransactionReceipt', 'eth_getBlockReceipts']);
});

describe('receipts a block at a time (real node)', () => {
  let services: TestServices;
  before(async () => {
    services = await openTestServices();
  });
  after(() => services?.cleanup());

  test("the node's block receipts are the receipts it gives one at a time", async () => {
    const chain = services.chains.get('main');
    const rpc = (method: string, params: unknown[] = []) => chain.client.request({ method: method as never, params: params as never });
    const operator = await services.operator.signer();
    // The outbox's passes are stopped: the receipts are this test's to read.
    await services.outbox.stop();
    await rpc('evm_setAutomine', [false]);
    let submitted: Array<{ id: string }>;
    try {
      submitted = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          services.outbox.submit({ idempotencyKey: `block-receipts:${index}`, chain: 'main', signer: operator, to: privateKeyToAddress(generatePrivateKey()), value: parseEther('0.001'), gas: 21_000n }),
        ),
      );
      await services.outbox.stop();
      await rpc('evm_mine');
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    const rows = await services.store.db.selectFrom('outbox_transactions').selectAll().where('id', 'in', submitted.map((transaction) => transaction.id)).execute();
    // The chain as the outbox sees it, its client's calls counted by method.
    const calls: string[] = [];
    const client = new Proxy(chain.client, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property !== 'request' && property !== 'getTransactionReceipt') return value;
        return (...args: [{ method?: string }]) => {
          calls.push(property === 'request' ? String(args[0].method) : 'eth_getTransactionReceipt');
          return (value as (...inner: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const counted = { ...chain, client } as ChainContext;
    const receipts = await receiptsOf({ get: () => counted }, rows, await minedNonceCounts(services.chains, rows));
    assert.deepEqual(calls, ['eth_getTransactionReceipt', 'eth_getBlockReceipts'], 'twelve receipts in two calls');
    for (const [index, receipt] of receipts.entries()) {
      const one = await chain.client.getTransactionReceipt({ hash: rows[index]!.tx_hash as Hex });
      assert.ok(receipt);
      assert.deepEqual(
        { status: receipt.status, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, gasUsed: receipt.gasUsed, contractAddress: receipt.contractAddress ?? null, logs: receipt.logs?.length },
        { status: one.status, blockNumber: one.blockNumber, blockHash: one.blockHash, gasUsed: one.gasUsed, contractAddress: one.contractAddress ?? null, logs: one.logs.length },
      );
      assert.equal(receipt.status, 'success');
    }
    await services.outbox.start();
  });
});
