// ABIs and creation bytecode of the card contracts. The ABIs are `as const` literals, so viem
// infers function names, arguments and return types from them.

import { cardEscrowAbi } from './generated/CardEscrow.ts';
import { cardNftAbi } from './generated/CardNFT.ts';
import { leanCardNftAbi } from './generated/LeanCardNFT.ts';
import { naiveCardNftAbi } from './generated/NaiveCardNFT.ts';
import { plainCardNftAbi } from './generated/PlainCardNFT.ts';

export { cardNftAbi, cardNftBytecode } from './generated/CardNFT.ts';
export { leanCardNftAbi, leanCardNftBytecode } from './generated/LeanCardNFT.ts';
export { cardEscrowAbi, cardEscrowBytecode } from './generated/CardEscrow.ts';
export { naiveCardNftAbi, naiveCardNftBytecode } from './generated/NaiveCardNFT.ts';
export { plainCardNftAbi, plainCardNftBytecode } from './generated/PlainCardNFT.ts';

export type CardNftAbi = typeof cardNftAbi;
export type LeanCardNftAbi = typeof leanCardNftAbi;
export type CardEscrowAbi = typeof cardEscrowAbi;
export type NaiveCardNftAbi = typeof naiveCardNftAbi;
export type PlainCardNftAbi = typeof plainCardNftAbi;

/**
 * Gas a `mintBatch` of `cards` recipients takes at most, on either card ledger: `perCard` a card
 * (about 29,700 for a recipient holding no card of the contract: its 20 bytes of recipient data,
 * its Transfer event and calldata, the new slot of its balance counter, a non-sendable card's
 * Locked event) and `batch` besides (the transaction, the data contract's creation, its slot and
 * the counters, a bucket's first slot, a new word of its batch-start bits and of the lock bits:
 * about 175,000 at most; a single-card mint about 100,000 in all). `contracts.test.ts` mints the
 * dearest batches and finds them within nine tenths of it. A mint sent with it as its gas limit
 * does not run out; unused gas is not paid.
 */
export const MINT_GAS = { perCard: 34_000n, batch: 200_000n } as const;

export function mintBatchGasBound(cards: number): bigint {
  return MINT_GAS.batch + MINT_GAS.perCard * BigInt(cards);
}
