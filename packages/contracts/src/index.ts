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
