import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChainRegistry } from './chains.ts';
import { embeddedNodeUnsticker, STALLED_MS, type PooledTransaction } from './embedded-node-pool.ts';

/** An automining embedded node whose pool is empty and whose accounts have sent nothing yet. */
const idleNode = {
  name: 'main',
  automine: true,
  client: {
    request: async ({ method }: { method: string }) => (method === 'txpool_status' ? { pending: '0x0' } : { pending: {}, queued: {} }),
    getTransactionCount: async () => 0,
  },
};
const chains = { get: () => idleNode } as unknown as Pick<ChainRegistry, 'get'>;

test('stalled transactions of several accounts go again one after another, in the order they were stored', async () => {
  const now = Date.now();
  // The deposit of one account was stored before the claim of another that needs it mined first.
  const deposit: PooledTransaction = { id: 'deposit', chain: 'main', from_address: '0x00000000000000000000000000000000000000bb', nonce: 7 };
  const claim: PooledTransaction = { id: 'claim', chain: 'main', from_address: '0x00000000000000000000000000000000000000aa', nonce: 2 };
  const events: string[] = [];
  const unstick = embeddedNodeUnsticker({
    chains,
    lastSentAt: () => now - STALLED_MS - 100,
    send: async (row) => {
      events.push(`send ${row.id}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      events.push(`${row.id} taken`);
    },
  });
  await unstick([deposit, claim], new Set(), now);
  assert.deepEqual(events, ['send deposit', 'deposit taken', 'send claim', 'claim taken']);
});

test('a transaction sent in this pass, or sent moments ago, is not sent again', async () => {
  const now = Date.now();
  const justSent: PooledTransaction = { id: 'just-sent', chain: 'main', from_address: '0x00000000000000000000000000000000000000aa', nonce: 1 };
  const sentThisPass: PooledTransaction = { id: 'this-pass', chain: 'main', from_address: '0x00000000000000000000000000000000000000bb', nonce: 4 };
  const stalled: PooledTransaction = { id: 'stalled', chain: 'main', from_address: '0x00000000000000000000000000000000000000cc', nonce: 9 };
  const sent: string[] = [];
  const unstick = embeddedNodeUnsticker({
    chains,
    lastSentAt: (id) => (id === 'just-sent' ? now - 10 : now - STALLED_MS - 100),
    send: async (row) => void sent.push(row.id),
  });
  await unstick([justSent, sentThisPass, stalled], new Set([sentThisPass]), now);
  assert.deepEqual(sent, ['stalled']);
});
