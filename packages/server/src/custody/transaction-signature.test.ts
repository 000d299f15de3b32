import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { recoverTransactionAddress, serializeTransaction, type TransactionSerializable } from 'viem';
import { generatePrivateKey, privateKeyToAccount, signTransaction } from 'viem/accounts';
import { signers, signingBuild, signTransactionWithKey } from './transaction-signature.ts';

const to = () => `0x${randomBytes(20).toString('hex')}` as const;

/** One of each kind the service may sign, with fields that vary between calls. */
function transactions(index: number): TransactionSerializable[] {
  const common = { chainId: 31337, nonce: index, gas: 21_000n + BigInt(index), value: BigInt(index) * 10n ** 15n };
  return [
    { ...common, type: 'eip1559', to: to(), maxFeePerGas: 2_000_000_000n + BigInt(index), maxPriorityFeePerGas: 1_000_000_000n },
    // A contract deployment: no recipient, calldata.
    { ...common, type: 'eip1559', to: null, data: `0x${randomBytes(200 + index).toString('hex')}`, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 0n },
    { ...common, type: 'eip2930', to: to(), gasPrice: 1_500_000_000n, accessList: [{ address: to(), storageKeys: [`0x${randomBytes(32).toString('hex')}`] }] },
    { ...common, type: 'legacy', to: to(), gasPrice: 1_000_000_000n },
  ] as TransactionSerializable[];
}

test('the native build signs where the package ships one (Linux x64, as on CI), and is the one used', () => {
  const shipped = ['linux-x64', 'darwin-arm64', 'win32-x64'].includes(`${process.platform}-${process.arch}`);
  assert.deepEqual(
    signers.map((signer) => signer.name),
    shipped ? ['native', 'webassembly'] : ['webassembly'],
  );
  assert.equal(signingBuild, signers[0]!.name);
});

test('a transaction is signed to the same bytes as viem signs it, for every kind and by every build, and recovers to its key', async () => {
  for (const { name, sign } of signers) {
    for (let index = 0; index < 25; index++) {
      const privateKey = generatePrivateKey();
      for (const transaction of transactions(index)) {
        const raw = await signTransactionWithKey(privateKey, transaction, undefined, sign);
        assert.equal(raw, await signTransaction({ privateKey, transaction }), `${name}: ${transaction.type} #${index}`);
        assert.equal(await recoverTransactionAddress({ serializedTransaction: raw as never }), privateKeyToAccount(privateKey).address);
      }
    }
  }
});

test('a serializer given is the one used, for the signing hash and the result', async () => {
  const privateKey = generatePrivateKey();
  const transaction = transactions(1)[0]!;
  const calls: string[] = [];
  const serializer = ((tx: TransactionSerializable, signature?: unknown) => {
    calls.push(signature ? 'signed' : 'unsigned');
    return serializeTransaction(tx, signature as never);
  }) as typeof serializeTransaction;
  assert.equal(await signTransactionWithKey(privateKey, transaction, serializer), await signTransaction({ privateKey, transaction }));
  assert.deepEqual(calls, ['unsigned', 'signed']);
});

test('an invalid key or transaction is refused with an error by every build, not a bad signature', async () => {
  const transaction = transactions(2)[0]!;
  for (const { sign } of signers) {
    await assert.rejects(signTransactionWithKey(`0x${'00'.repeat(32)}`, transaction, undefined, sign), /private/i);
    await assert.rejects(signTransactionWithKey(`0x${'ff'.repeat(32)}`, transaction, undefined, sign), /private/i);
    await assert.rejects(signTransactionWithKey(generatePrivateKey(), { ...transaction, maxPriorityFeePerGas: 10n ** 19n } as TransactionSerializable, undefined, sign), /priority/i);
  }
});
