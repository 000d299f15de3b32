import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChainContext } from '../chain/chains.ts';
import type { OutboxRow } from '../store/schema.ts';
import { RoomWatch } from './room-watch.ts';

const MEMBER = '0xaa00000000000000000000000000000000000000';

test("the accounts waiting for room have their mined counts read once their chain's head moves, and only then", async () => {
  const calls: string[] = [];
  const counted: string[] = [];
  let head: bigint | Error = 7n;
  let waiting: Array<Pick<OutboxRow, 'chain' | 'from_address'>> = [];
  const chain = {
    client: {
      getBlockNumber: async () => {
        calls.push('eth_blockNumber');
        if (head instanceof Error) throw head;
        return head;
      },
      getTransactionCount: async () => {
        calls.push('eth_getTransactionCount');
        return 12;
      },
    },
  } as unknown as ChainContext;
  const watch = new RoomWatch({
    chains: { get: () => chain },
    broadcaster: { waitingAccounts: () => waiting, minedCount: (account, count) => void counted.push(`${account} ${count}`) },
  });

  await watch.check();
  assert.deepEqual(calls, [], 'nothing waits: the node is not asked');
  waiting = [{ chain: 'main', from_address: MEMBER }];
  await watch.check();
  assert.deepEqual(calls, ['eth_blockNumber', 'eth_getTransactionCount']);
  assert.deepEqual(counted, [`main:${MEMBER} 12`]);
  calls.length = 0;
  await watch.check();
  assert.deepEqual(calls, ['eth_blockNumber'], 'the same head: no count read');
  head = 8n;
  await watch.check();
  assert.deepEqual(calls, ['eth_blockNumber', 'eth_blockNumber', 'eth_getTransactionCount']);
  calls.length = 0;
  head = new Error('connection refused');
  await watch.check();
  assert.deepEqual(calls, ['eth_blockNumber'], 'a node that does not answer is left to the pass');
  assert.equal(counted.length, 2);
});
