import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseEther, toHex, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import type { ChainContext } from '../chain/chains.ts';
import { openTestServices, type TestServices } from '../testing/test-services.ts';
import { BalanceReservations, FeeCache, OutboxRefusal } from './fees.ts';

/** The main chain with its node calls counted by method. */
function countedChain(chain: ChainContext): { chain: ChainContext; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const count = <T extends (...args: never[]) => Promise<unknown>>(name: string, call: T): T =>
    ((...args: Parameters<T>) => {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      return call(...args);
    }) as T;
  const client = Object.create(chain.client) as ChainContext['client'];
  client.getBalance = count('getBalance', chain.client.getBalance);
  client.estimateFeesPerGas = count('estimateFeesPerGas', chain.client.estimateFeesPerGas) as typeof client.estimateFeesPerGas;
  return { chain: { ...chain, client }, calls };
}

describe('fees and balance reservations (real node)', () => {
  let services: TestServices;

  before(async () => {
    services = await openTestServices();
  });
  after(() => services?.cleanup());

  test('submissions arriving together wait for one balance read, and together cannot reserve more than the balance', async () => {
    const { chain, calls } = countedChain(services.chains.get('main'));
    const account: Address = privateKeyToAddress(generatePrivateKey());
    await chain.client.request({ method: 'anvil_setBalance' as never, params: [account, toHex(parseEther('1'))] as never });
    const reservations = new BalanceReservations();
    // Eight at once of 0.1 each: one read, all reserved.
    await Promise.all(Array.from({ length: 8 }, () => reservations.reserve(chain, account, parseEther('0.1'))));
    assert.equal(calls.get('getBalance'), 1);
    // 0.2 of the read balance left unreserved: 0.15 fits without a read; 0.15 more does not, so the
    // node is asked again (it still holds 1, since nothing was spent).
    await reservations.reserve(chain, account, parseEther('0.15'));
    assert.equal(calls.get('getBalance'), 1);
    await reservations.reserve(chain, account, parseEther('0.15'));
    assert.equal(calls.get('getBalance'), 2);
    // More than the node's balance: refused.
    await assert.rejects(reservations.reserve(chain, account, parseEther('2')), (error: unknown) => error instanceof OutboxRefusal && error.reason === 'insufficient_funds');
  });

  test('fee estimates asked together are one node call', async () => {
    const { chain, calls } = countedChain(services.chains.get('main'));
    const cache = new FeeCache();
    const fees = await Promise.all(Array.from({ length: 8 }, () => cache.fees(chain)));
    assert.equal(calls.get('estimateFeesPerGas'), 1);
    assert.ok(fees.every((each) => each.maxFeePerGas === fees[0]!.maxFeePerGas && each.maxFeePerGas > 0n));
  });
});
