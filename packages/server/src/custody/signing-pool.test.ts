import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTransaction, recoverTransactionAddress, type TransactionSerializableEIP1559 } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { SigningPool } from './signing-pool.ts';

const transfer = (nonce: number): TransactionSerializableEIP1559 => ({
  type: 'eip1559',
  chainId: 31337,
  nonce,
  to: '0x00000000000000000000000000000000000000aa',
  value: BigInt(nonce + 1),
  gas: 21_000n,
  maxFeePerGas: 2_000_000_000n,
  maxPriorityFeePerGas: 1_000_000_000n,
});

test('the worker signs exactly what the key would sign here, many at once, and signing goes on after close', async () => {
  const pool = new SigningPool();
  const keys = [generatePrivateKey(), generatePrivateKey()];
  try {
    const requests = Array.from({ length: 20 }, (_, index) => ({ key: keys[index % 2]!, transaction: transfer(index) }));
    const raws = await Promise.all(requests.map(({ key, transaction }) => pool.signTransaction(key, transaction)));
    for (const [index, raw] of raws.entries()) {
      const { key, transaction } = requests[index]!;
      assert.equal(raw, await privateKeyToAccount(key).signTransaction(transaction));
      assert.equal(parseTransaction(raw).nonce, index);
      assert.equal(await recoverTransactionAddress({ serializedTransaction: raw as never }), privateKeyToAccount(key).address);
    }
  } finally {
    await pool.close();
  }
  // Closed: the same signature, made in this thread.
  assert.equal(await pool.signTransaction(keys[0]!, transfer(7)), await privateKeyToAccount(keys[0]!).signTransaction(transfer(7)));
});

test('what a wallet client adds around a transaction (account, chain, from) stays out of the signature', async () => {
  const pool = new SigningPool();
  try {
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    const wrapped = { ...transfer(3), from: account.address, account, chain: { id: 31337, formatters: { transaction: { format: () => ({}) } } } };
    assert.equal(await pool.signTransaction(key, wrapped as never), await account.signTransaction(transfer(3)));
  } finally {
    await pool.close();
  }
});

test('a transaction the signer refuses is an error for that request only', async () => {
  const pool = new SigningPool();
  try {
    const key = generatePrivateKey();
    const [bad, good] = await Promise.allSettled([
      pool.signTransaction(key, { ...transfer(0), maxPriorityFeePerGas: 3_000_000_000n }),
      pool.signTransaction(key, transfer(1)),
    ]);
    assert.equal(bad.status, 'rejected');
    assert.match(String((bad as PromiseRejectedResult).reason), /maxPriorityFeePerGas|priority/i);
    assert.equal(good.status, 'fulfilled');
  } finally {
    await pool.close();
  }
});
