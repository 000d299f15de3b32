import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseEther, toHex, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import type { ChainContext } from '../chain/chains.ts';
import { openTestServices, type TestServices } from '../testing/test-services.ts';
import { BalanceReservations, FeeCache, OutboxRefusal, REFRESH_AHEAD_MS } from './fees.ts';

/** The main chain with its node calls counted by method, and the last call of each. */
function countedChain(chain: ChainContext): { chain: ChainContext; calls: Map<string, number>; last: Map<string, Promise<unknown>> } {
  const calls = new Map<string, number>();
  const last = new Map<string, Promise<unknown>>();
  const count = <T extends (...args: never[]) => Promise<unknown>>(name: string, call: T): T =>
    ((...args: Parameters<T>) => {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      const answer = call(...args);
      last.set(name, answer);
      return answer;
    }) as T;
  const client = Object.create(chain.client) as ChainContext['client'];
  client.getBalance = count('getBalance', chain.client.getBalance);
  client.estimateFeesPerGas = count('estimateFeesPerGas', chain.client.estimateFeesPerGas) as typeof client.estimateFeesPerGas;
  return { chain: { ...chain, client }, calls, last };
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

  test('an estimate past half its life is answered at once and read again beside the call; the new one lives on from that read', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const { chain, calls, last } = countedChain(services.chains.get('main'));
    const cache = new FeeCache();
    const first = await cache.fees(chain);
    t.mock.timers.tick(REFRESH_AHEAD_MS + 100);
    assert.equal(await cache.fees(chain), first, 'the cached estimate, not one waited for');
    assert.equal(calls.get('estimateFeesPerGas'), 2, 'read again beside the call');
    await last.get('estimateFeesPerGas');
    const refreshed = await cache.fees(chain);
    assert.notEqual(refreshed, first);
    assert.equal(calls.get('estimateFeesPerGas'), 2);
    // 1.5 s after the first read and 0.9 s after the second: still the second's, no call waits.
    t.mock.timers.tick(900);
    assert.equal(await cache.fees(chain), refreshed);
  });

  test('a balance read ahead keeps a steadily used account fresh and shows a spend from elsewhere; it never raises what is left', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const { chain, calls, last } = countedChain(services.chains.get('main'));
    const account: Address = privateKeyToAddress(generatePrivateKey());
    const setBalance = (ether: string) => chain.client.request({ method: 'anvil_setBalance' as never, params: [account, toHex(parseEther(ether))] as never });
    await setBalance('1');
    const reservations = new BalanceReservations();
    await reservations.reserve(chain, account, parseEther('0.1')); // read: 1, so 0.9 left
    assert.equal(calls.get('getBalance'), 1);
    // Half a second on, the account spent 0.5 elsewhere: the next call is not held up, and reads ahead.
    t.mock.timers.tick(REFRESH_AHEAD_MS + 100);
    await setBalance('0.5');
    await reservations.reserve(chain, account, parseEther('0.1')); // 0.8 left by the count
    assert.equal(calls.get('getBalance'), 2);
    await reservations.reserve(chain, account, parseEther('0.1')); // reserved while the read is under way: 0.7
    await last.get('getBalance'); // the node says 0.5, less the 0.1 reserved since: 0.4 left
    // 1.05 s after the first read: without the read ahead it would be read again here.
    t.mock.timers.tick(450);
    await reservations.reserve(chain, account, parseEther('0.35'));
    assert.equal(calls.get('getBalance'), 2, 'fresh from the read ahead: no call waited');
    // 0.05 left: 0.1 more is read for, and the node's 0.5 now covers it (reads that calls wait for start afresh).
    await reservations.reserve(chain, account, parseEther('0.1'));
    assert.equal(calls.get('getBalance'), 3);
    // A read ahead that answers more than the count does not raise it.
    t.mock.timers.tick(REFRESH_AHEAD_MS + 100);
    await setBalance('100');
    await reservations.reserve(chain, account, parseEther('0.1')); // 0.3 left by the count; reads ahead
    await last.get('getBalance');
    assert.equal(calls.get('getBalance'), 4);
    await reservations.reserve(chain, account, parseEther('0.3'));
    assert.equal(calls.get('getBalance'), 4, '0.3 was left');
    await reservations.reserve(chain, account, parseEther('0.1'));
    assert.equal(calls.get('getBalance'), 5, 'nothing was left: read, not taken from the read ahead');
  });
});
