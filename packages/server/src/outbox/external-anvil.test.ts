/**
 * The outbox on an anvil the operator runs (an external chain): several instances sharing one
 * account send out of nonce order, and anvil's automine can then keep an account's next nonce
 * queued for good (see automineUnsticker). An external node that automines gets the same help as
 * an embedded one; one that mines by itself is left alone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { toHex, parseEther, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { MAIN_MESSAGE_PREFIX } from '../config/chains.ts';
import { startTestChain, type TestChain } from '../testing/chain-node.ts';
import { openTestServices, type TestServices } from '../testing/test-services.ts';
import { STALLED_MS } from '../chain/automining-pool.ts';
import { sendIntoQueue } from '../chain/testing/queued-next-nonce.ts';
import type { TransactionSigner } from './outbox.ts';

const freshAddress = (): Address => privateKeyToAddress(generatePrivateKey());

describe('transaction outbox on an external anvil', () => {
  let chain: TestChain;
  let services: TestServices;

  before(async () => {
    chain = await startTestChain();
    services = await openTestServices({
      chains: { main: { mode: 'external', rpcUrl: chain.rpcUrl, chainId: chain.chainId, messagePrefix: MAIN_MESSAGE_PREFIX }, ethereum: null, polygon: null },
    });
  });
  after(async () => {
    await services?.cleanup();
    await chain?.stop();
  });

  const rpc = (method: string, params: unknown[] = []) => services.chains.get('main').client.request({ method: method as never, params: params as never });

  async function fundedSigner(): Promise<TransactionSigner> {
    const key = await services.vault.createKey({ ownerType: 'fee_payer', ownerId: 'external-test', protection: 'server', secretKind: 'private_key' });
    await rpc('anvil_setBalance', [key.address, toHex(parseEther('10'))]);
    const unlocked = await services.vault.unlock(key.keyId);
    return { address: unlocked.address, account: unlocked.account };
  }

  const transfer = (signer: TransactionSigner, label: string, to: Address, value: bigint) =>
    services.outbox.submit({ idempotencyKey: `${label}:${to}`, chain: 'main', signer, to, value, gas: 21_000n });

  test('an account whose next nonce the automining node keeps queued gets its transactions sent again into an empty pool', async () => {
    const chainContext = services.chains.get('main');
    assert.equal(chainContext.managed, false);
    const signer = await fundedSigner();
    const first = await transfer(signer, 'queued-first', freshAddress(), 1n);
    assert.equal((await services.outbox.waitForFinal(first.id)).nonce, 0);
    // The node is made to keep the account's next nonce queued, as anvil does when two instances'
    // broadcasts arrive out of nonce order.
    const to = freshAddress();
    const held = await sendIntoQueue(chainContext, signer.address, 1, () => transfer(signer, 'queued-held', to, 2n));
    assert.equal(held.nonce, 1);
    const mined = await services.outbox.waitForFinal(held.id, 15_000);
    assert.equal(mined.status, 'mined');
    assert.equal(mined.receiptStatus, 'success');
    assert.equal(await chainContext.client.getBalance({ address: to }), 2n);
    assert.equal(await chainContext.client.getTransactionCount({ address: signer.address }), 2);
    assert.deepEqual(await rpc('txpool_status'), { pending: '0x0', queued: '0x0' });
  });

  test('an external node that does not automine is left to mine by itself: the outbox mines no block for it', async () => {
    const client = services.chains.get('main').client;
    const signer = await fundedSigner();
    await rpc('evm_setAutomine', [false]);
    try {
      const head = await client.getBlockNumber({ cacheTime: 0 });
      const to = freshAddress();
      const waiting = await transfer(signer, 'interval', to, 3n);
      // Many passes' worth of time past the stall mark: an automining node would have had a block mined for it by now.
      await new Promise((resolve) => setTimeout(resolve, STALLED_MS * 6));
      assert.equal(await client.getBlockNumber({ cacheTime: 0 }), head, 'no block was mined');
      assert.equal((await services.outbox.findById(waiting.id))?.status, 'signed');
      await rpc('evm_mine');
      const mined = await services.outbox.waitForFinal(waiting.id, 15_000);
      assert.equal(mined.receiptStatus, 'success');
      assert.equal(await client.getBalance({ address: to }), 3n);
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
  });
});
