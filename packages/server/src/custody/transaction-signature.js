// Transaction signatures for custody keys. Plain JavaScript: the signing worker (signing-thread.js)
// loads it the same way however the service was started.
//
// The signature is made by libsecp256k1 compiled to WebAssembly (tiny-secp256k1) instead of viem's
// JavaScript signer (@noble/curves): the same RFC 6979 deterministic, low-s signature, byte for
// byte, at about a third of the CPU. Every outbox transaction is signed, so this is the outbox's
// largest cost (docs/architecture.md, "Signing"). Keys are still made, derived and sealed with
// noble/scure; only this one operation moved.
import { bytesToHex, hexToBytes, keccak256, serializeTransaction } from 'viem';
import { signRecoverable } from 'tiny-secp256k1';

/**
 * The signed, serialized transaction, as viem's `signTransaction({ privateKey, transaction,
 * serializer })` gives it.
 *
 * @param {`0x${string}`} privateKey
 * @param {import('viem').TransactionSerializable} transaction
 * @param {import('viem').SerializeTransactionFn<import('viem').TransactionSerializable>} [serializer]
 * @returns {Promise<`0x${string}`>}
 */
export async function signTransactionWithKey(privateKey, transaction, serializer = serializeTransaction) {
  // As viem does: blob sidecars are not part of what is signed.
  const signable = transaction.type === 'eip4844' ? { ...transaction, sidecars: false } : transaction;
  const hash = keccak256(await serializer(signable), 'bytes');
  const keyBytes = hexToBytes(privateKey);
  let signed;
  try {
    signed = signRecoverable(hash, keyBytes);
  } finally {
    keyBytes.fill(0);
  }
  const { signature, recoveryId } = signed;
  // 2 and 3 mean r overflowed the group order (odds about 2^-127); Ethereum has no way to say it.
  if (recoveryId > 1) throw new Error('signature recovery id out of range');
  const r = bytesToHex(signature.subarray(0, 32));
  const s = bytesToHex(signature.subarray(32));
  // yParity for typed transactions, v for legacy ones (viem derives EIP-155's v from it).
  return serializer(transaction, { r, s, yParity: recoveryId, v: 27n + BigInt(recoveryId) });
}
