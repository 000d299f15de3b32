/**
 * The send window on a real node that mines a block a second, and a real store: an account never
 * has more than the window unmined in the node's pool, and the transactions waiting for room (held
 * in memory only) still go, each once, after the service stops with them waiting.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { parseEther, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { parsePrometheusText, sumOf } from '../metrics/testing/prometheus-text.ts';
import type { Services } from '../services.ts';
import { eventually } from '../testing/eventually.ts';
import { createTestInstallation, type TestInstallation } from '../testing/test-services.ts';

const WINDOW = 4;
const TRANSFERS = 10;

let installation: TestInstallation | undefined;
let services: Services | undefined;
after(async () => {
  await services?.close();
  await installation?.remove();
});

test('an account has at most its window unmined in the node; the rest wait, stored, and go after a restart, each once, in nonce order', { timeout: 90_000 }, async () => {
  installation = await createTestInstallation({
    chains: { main: { blockTimeSeconds: 1 }, ethereum: null, polygon: null },
    outbox: { pollIntervalMs: 50, rebroadcastAfterMs: 1_000, sendWindow: WINDOW },
  });
  services = await installation.open();
  const operator = await services.operator.signer();
  const key = await services.vault.createKey({ ownerType: 'fee_payer', ownerId: 'window', protection: 'server', secretKind: 'private_key' });
  const funding = await services.outbox.submit({ idempotencyKey: `fund:${key.address}`, chain: 'main', signer: operator, to: key.address, value: parseEther('1') });
  assert.equal((await services.outbox.waitForFinal(funding.id, 30_000)).receiptStatus, 'success');
  const unlocked = await services.vault.unlock(key.keyId);
  const signer = { address: unlocked.address, account: unlocked.account };
  const firstBlock = await services.chains.get('main').client.getBlockNumber({ cacheTime: 0 });

  // The node's pool, read every 10 ms through whichever services are open.
  let mostPending = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const status = (await services?.chains
        .get('main')
        .client.request({ method: 'txpool_status' as never })
        .catch(() => undefined)) as { pending: Hex } | undefined;
      if (status) mostPending = Math.max(mostPending, Number(BigInt(status.pending)));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();

  const recipients = Array.from({ length: TRANSFERS }, () => privateKeyToAddress(generatePrivateKey()));
  const submitted = await Promise.all(
    recipients.map((to, index) => services!.outbox.submit({ idempotencyKey: `window:${to}`, chain: 'main', signer, to, value: BigInt(index + 1), gas: 21_000n })),
  );
  assert.deepEqual(submitted.map((transaction) => transaction.nonce).sort((a, b) => a - b), Array.from({ length: TRANSFERS }, (_, index) => index));
  // The operator sees them wait (a block may have made room for some already).
  const waiting = sumOf(parsePrometheusText((await services.metrics.text()).body), 'wallet_outbox_window_waiting', { chain: 'main' });
  assert.ok(waiting >= 1 && waiting <= TRANSFERS - WINDOW, `${waiting} waiting for room`);
  // Stopped at once: all are stored; those waiting for room were only in this process's memory.
  await services.close();
  services = await installation.open();
  const finals = await Promise.all(submitted.map((transaction) => services!.outbox.waitForFinal(transaction.id, 60_000)));
  sampling = false;
  await sampler;

  assert.ok(finals.every((transaction) => transaction.status === 'mined' && transaction.receiptStatus === 'success'));
  assert.equal(sumOf(parsePrometheusText((await services.metrics.text()).body), 'wallet_outbox_window_waiting', { chain: 'main' }), 0);
  const client = services.chains.get('main').client;
  for (const [index, to] of recipients.entries()) assert.equal(await client.getBalance({ address: to }), BigInt(index + 1), 'each transfer once');
  assert.equal(await client.getTransactionCount({ address: signer.address }), TRANSFERS);
  assert.ok(mostPending <= WINDOW, `the node's pool held ${mostPending} at once; the window is ${WINDOW}`);
  // Block by block: never more than the window from the account, in nonce order.
  const lastBlock = await client.getBlockNumber({ cacheTime: 0 });
  const nonces: number[] = [];
  for (let number = firstBlock + 1n; number <= lastBlock; number++) {
    const block = await client.getBlock({ blockNumber: number, includeTransactions: true });
    const ours = block.transactions.filter((transaction) => transaction.from.toLowerCase() === (signer.address.toLowerCase() as Address));
    assert.ok(ours.length <= WINDOW, `block ${number} holds ${ours.length} of the account's transactions`);
    nonces.push(...ours.map((transaction) => transaction.nonce));
  }
  assert.deepEqual(nonces, Array.from({ length: TRANSFERS }, (_, index) => index));
});

test('between passes, a new block makes room at once: the waiting transactions go without waiting for the next pass', { timeout: 90_000 }, async () => {
  // Passes a minute apart: after the first, only the watch of the chain's head can make room.
  const spaced = await createTestInstallation({
    chains: { main: { blockTimeSeconds: 1 }, ethereum: null, polygon: null },
    outbox: { pollIntervalMs: 60_000, rebroadcastAfterMs: 120_000, sendWindow: 2 },
  });
  const opened = await spaced.open();
  try {
    const key = await opened.vault.createKey({ ownerType: 'fee_payer', ownerId: 'room', protection: 'server', secretKind: 'private_key' });
    const client = opened.chains.get('main').client;
    // Funded by the node, not the outbox, so that no pass is asked for.
    await client.request({ method: 'anvil_setBalance' as never, params: [key.address, `0x${parseEther('1').toString(16)}`] as never });
    const unlocked = await opened.vault.unlock(key.keyId);
    const signer = { address: unlocked.address, account: unlocked.account };
    const recipients = Array.from({ length: 6 }, () => privateKeyToAddress(generatePrivateKey()));
    await Promise.all(recipients.map((to) => opened.outbox.submit({ idempotencyKey: `room:${to}`, chain: 'main', signer, to, value: 1n, gas: 21_000n })));
    // Without waiting on them (a waiter would ask for a pass): the node's count alone.
    await eventually('all six mined', 30_000, async () => ((await client.getTransactionCount({ address: signer.address })) === 6 ? true : undefined));
    for (const to of recipients) assert.equal(await client.getBalance({ address: to }), 1n);
  } finally {
    await opened.close();
    await spaced.remove();
  }
});
