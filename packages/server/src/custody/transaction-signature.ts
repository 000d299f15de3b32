// Transaction signatures for custody keys.
//
// The signature is made by libsecp256k1 rather than by viem's JavaScript signer (@noble/curves):
// the same RFC 6979 deterministic, low-s signature, byte for byte, at a fraction of the CPU. Every
// outbox transaction is signed, so this is the outbox's largest cost of its own (docs/architecture.md,
// "Signing"). The native build shipped in the `secp256k1` package is used where it loads (its
// prebuilt binaries: Linux x64, macOS arm64, Windows x64); elsewhere the WebAssembly build of the same
// library (`tiny-secp256k1`). Keys are still made, derived and sealed with noble/scure; only this one
// operation moved.
import { createRequire } from 'node:module';
import { bytesToHex, hexToBytes, keccak256, serializeTransaction, type Hex, type SerializeTransactionFn, type TransactionSerializable } from 'viem';
import { signRecoverable } from 'tiny-secp256k1';

/** A recoverable secp256k1 signature of a 32-byte hash: r and s (64 bytes) and the recovery id. */
export type RecoverableSign = (hash: Uint8Array, privateKey: Uint8Array) => { signature: Uint8Array; recoveryId: number };

interface NativeSecp256k1 {
  ecdsaSign(hash: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
}

/**
 * The native binding, or undefined where the package has no binary for this platform. Its
 * `bindings.js` is loaded rather than the package's entry point, which would fall back to a slow
 * pure-JavaScript implementation (elliptic) without saying so.
 */
function loadNative(): RecoverableSign | undefined {
  try {
    const native = createRequire(import.meta.url)('secp256k1/bindings.js') as NativeSecp256k1;
    return (hash, privateKey) => {
      const { signature, recid } = native.ecdsaSign(hash, privateKey);
      return { signature, recoveryId: recid };
    };
  } catch {
    return undefined;
  }
}

const native = loadNative();

/** Every libsecp256k1 build that loads here, the one used first. */
export const signers: ReadonlyArray<{ name: 'native' | 'webassembly'; sign: RecoverableSign }> = [
  ...(native ? [{ name: 'native' as const, sign: native }] : []),
  { name: 'webassembly', sign: signRecoverable },
];

/** Which build signs: said once at start-up, since it sets how many transactions a second the outbox can sign. */
export const signingBuild = signers[0]!.name;

/**
 * The signed, serialized transaction, as viem's `signTransaction({ privateKey, transaction,
 * serializer })` gives it.
 */
export async function signTransactionWithKey(
  privateKey: Hex,
  transaction: TransactionSerializable,
  serializer: SerializeTransactionFn<TransactionSerializable> = serializeTransaction,
  sign: RecoverableSign = signers[0]!.sign,
): Promise<Hex> {
  // As viem does: blob sidecars are not part of what is signed.
  const signable = transaction.type === 'eip4844' ? { ...transaction, sidecars: false as const } : transaction;
  const hash = keccak256(await serializer(signable), 'bytes');
  const keyBytes = hexToBytes(privateKey);
  let signed: ReturnType<RecoverableSign>;
  try {
    signed = sign(hash, keyBytes);
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
