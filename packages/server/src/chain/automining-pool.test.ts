import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpRequestError, MethodNotFoundRpcError, MethodNotSupportedRpcError, RpcRequestError } from 'viem';
import type { ChainContext, ChainRegistry } from './chains.ts';
import { automineUnsticker, nodeAutomines, STALLED_MS, type PooledTransaction } from './automining-pool.ts';

/** An automining embedded node whose pool is empty and whose accounts have sent nothing yet. */
const idleNode = {
  name: 'main',
  managed: true,
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
  const unstick = automineUnsticker({
    chains,
    automines: async () => true,
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
  const unstick = automineUnsticker({
    chains,
    automines: async () => true,
    lastSentAt: (id) => (id === 'just-sent' ? now - 10 : now - STALLED_MS - 100),
    send: async (row) => void sent.push(row.id),
  });
  await unstick([justSent, sentThisPass, stalled], new Set([sentThisPass]), now);
  assert.deepEqual(sent, ['stalled']);
});

test('an external node the pass finds stalled is asked whether it automines; one that says no is left alone', async () => {
  const now = Date.now();
  const row: PooledTransaction = { id: 'waiting', chain: 'main', from_address: '0x00000000000000000000000000000000000000aa', nonce: 3 };
  const asked: string[] = [];
  const sent: string[] = [];
  const unstick = automineUnsticker({
    chains,
    automines: async (chain) => {
      asked.push(chain.name);
      return false;
    },
    lastSentAt: () => now - STALLED_MS - 100,
    send: async (stalled) => void sent.push(stalled.id),
  });
  await unstick([row], new Set(), now);
  assert.deepEqual(asked, ['main'], 'asked once for the chain');
  assert.deepEqual(sent, []);
  // Nothing stalled (sent moments ago): the node is not asked.
  const quiet = automineUnsticker({
    chains,
    automines: async (chain) => {
      asked.push(chain.name);
      return true;
    },
    lastSentAt: () => now,
    send: async () => {},
  });
  await quiet([row], new Set(), now);
  assert.deepEqual(asked, ['main']);
});

test('on an external node, which other instances send to, only what the node holds goes again', async () => {
  const now = Date.now();
  const claimer = '0x00000000000000000000000000000000000000aa';
  const partner = '0x00000000000000000000000000000000000000bb';
  // Another instance stored a deposit (its row, never sent by this process) before this process's
  // claim; a restart of the node lost both. The claim must not go before the deposit does.
  const deposit: PooledTransaction = { id: 'deposit', chain: 'main', from_address: partner, nonce: 7 };
  const claim: PooledTransaction = { id: 'claim', chain: 'main', from_address: claimer, nonce: 2 };
  // This process's transfers from a third account: the node keeps nonce 4 queued though it is
  // next, with 5; nonce 6 it never got.
  const sender = '0x00000000000000000000000000000000000000cc';
  const [held4, held5, lost6] = [4, 5, 6].map((nonce): PooledTransaction => ({ id: `sender-${nonce}`, chain: 'main', from_address: sender, nonce }));
  const calls: string[] = [];
  const externalNode = {
    name: 'main',
    managed: false,
    automine: false,
    client: {
      request: async ({ method, params }: { method: string; params?: unknown[] }) => {
        calls.push(params ? `${method} ${String(params[0])}` : method);
        if (method === 'txpool_status') return { pending: '0x0' };
        return { pending: {}, queued: { [sender]: { 4: 'transfer', 5: 'transfer' } } };
      },
      getTransactionCount: async ({ address }: { address: string }) => ({ [claimer]: 2, [partner]: 7, [sender]: 4 })[address],
    },
  };
  const sent: string[] = [];
  const unstick = automineUnsticker({
    chains: { get: () => externalNode } as unknown as Pick<ChainRegistry, 'get'>,
    automines: async () => true,
    lastSentAt: (id) => (id === 'deposit' ? undefined : now - STALLED_MS - 100),
    send: async (row) => void sent.push(row.id),
  });
  await unstick([deposit, claim, held4!, held5!, lost6!], new Set(), now);
  assert.deepEqual(sent, ['sender-4', 'sender-5'], 'the queued ones, in nonce order; not the claim, nor nonce 6');
  assert.equal(calls.filter((call) => call === 'txpool_inspect').length, 1, "the node's pool read once for its two stalled accounts");
  assert.ok(calls.includes(`anvil_removePoolTransactions ${sender}`));
  assert.ok(!calls.some((call) => call.startsWith('anvil_removePoolTransactions') && !call.endsWith(sender)));
  // Still the lowest long after: on an external node that alone sends nothing (the passes do, in order).
  sent.length = 0;
  await unstick([deposit, claim], new Set(), now + 10_000);
  await unstick([deposit, claim], new Set(), now + 20_000);
  assert.deepEqual(sent, []);
});

test('nodeAutomines: an embedded node by its settings; an external one asked each time, and never again once it refuses the method', async () => {
  const externalNode = (answers: Array<unknown>) => {
    const methods: string[] = [];
    const chain = {
      name: 'main',
      managed: false,
      automine: false,
      client: {
        request: async ({ method }: { method: string }) => {
          methods.push(method);
          const answer = answers.shift();
          if (answer instanceof Error) throw answer;
          return answer;
        },
      },
    } as unknown as ChainContext;
    return { chain, methods };
  };
  const automines = nodeAutomines();
  const embedded = { name: 'ethereum', managed: true, automine: true, client: { request: async () => assert.fail('an embedded node is not asked') } } as unknown as ChainContext;
  assert.equal(await automines(embedded), true);

  // anvil answers, and is asked again next time: automine can be switched while it runs.
  const anvil = externalNode([true, false]);
  assert.equal(await automines(anvil.chain), true);
  assert.equal(await automines(anvil.chain), false);
  assert.deepEqual(anvil.methods, ['anvil_getAutomine', 'anvil_getAutomine']);

  // A node that did not answer counts as not automining, and is asked again.
  const unreachable = externalNode([new HttpRequestError({ url: 'http://127.0.0.1:1' }), true]);
  const afterOutage = nodeAutomines();
  assert.equal(await afterOutage(unreachable.chain), false);
  assert.equal(await afterOutage(unreachable.chain), true);

  // Hardhat (-32004) and geth or a provider (-32601) refuse the method: not asked again.
  for (const refusal of [
    new MethodNotSupportedRpcError(new RpcRequestError({ body: {}, url: '', error: { code: -32004, message: 'Method anvil_getAutomine is not supported' } })),
    new MethodNotFoundRpcError(new RpcRequestError({ body: {}, url: '', error: { code: -32601, message: 'the method anvil_getAutomine does not exist' } })),
  ]) {
    const other = externalNode([refusal, true]);
    const check = nodeAutomines();
    assert.equal(await check(other.chain), false);
    assert.equal(await check(other.chain), false);
    assert.deepEqual(other.methods, ['anvil_getAutomine']);
  }
});
