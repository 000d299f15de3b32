import type { Hex, SerializeTransactionFn, TransactionSerializable } from 'viem';

/** The signed, serialized transaction, as viem's `signTransaction({ privateKey, transaction, serializer })` gives it. */
export function signTransactionWithKey(
  privateKey: Hex,
  transaction: TransactionSerializable,
  serializer?: SerializeTransactionFn<TransactionSerializable>,
): Promise<Hex>;
