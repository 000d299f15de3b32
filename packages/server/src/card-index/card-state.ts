import { zeroAddress } from 'viem';
import type { IndexedCardRow } from '../store/schema.ts';
import type { CardTransfer } from './transfer-logs.ts';

/** One card as the index holds it (a row of indexed_cards, without the chain). */
export interface CardState {
  contract: string;
  tokenId: number;
  owner: string;
  sender: string;
  mintTxHash: string | null;
  lastTxHash: string;
  mintedAt: number | null;
  mintedBlock: number | null;
  updatedAt: number;
  updatedBlock: number;
  updatedLogIndex: number;
  burned: boolean;
}

/**
 * The card after `transfer`, or undefined when the card already reflects this log or a later one.
 * Comparing log positions is what makes applying a range twice (two processes, a retry after a
 * crash) give the same state as applying it once.
 */
export function applyTransfer(card: CardState | undefined, transfer: CardTransfer): CardState | undefined {
  if (card && comparePosition(transfer, card) <= 0) return undefined;
  const minted = transfer.from === zeroAddress;
  const mint = minted
    ? { mintTxHash: transfer.txHash, mintedAt: transfer.blockTime, mintedBlock: transfer.blockNumber }
    : { mintTxHash: card?.mintTxHash ?? null, mintedAt: card?.mintedAt ?? null, mintedBlock: card?.mintedBlock ?? null };
  return {
    contract: transfer.contract,
    tokenId: transfer.tokenId,
    owner: transfer.to,
    sender: transfer.from,
    ...mint,
    lastTxHash: transfer.txHash,
    updatedAt: transfer.blockTime,
    updatedBlock: transfer.blockNumber,
    updatedLogIndex: transfer.logIndex,
    burned: transfer.to === zeroAddress,
  };
}

function comparePosition(transfer: CardTransfer, card: CardState): number {
  return transfer.blockNumber - card.updatedBlock || transfer.logIndex - card.updatedLogIndex;
}

/** Key of a card within one chain. */
export function cardKey(contract: string, tokenId: number): string {
  return `${contract}:${tokenId}`;
}

export function cardStateOfRow(row: IndexedCardRow): CardState {
  return {
    contract: row.contract,
    tokenId: Number(row.token_id),
    owner: row.owner,
    sender: row.sender,
    mintTxHash: row.mint_tx_hash,
    lastTxHash: row.last_tx_hash,
    mintedAt: row.minted_at === null ? null : Number(row.minted_at),
    mintedBlock: row.minted_block === null ? null : Number(row.minted_block),
    updatedAt: Number(row.updated_at),
    updatedBlock: Number(row.updated_block),
    updatedLogIndex: Number(row.updated_log_index),
    burned: Number(row.burned) === 1,
  };
}

export function rowOfCardState(chain: string, card: CardState): IndexedCardRow {
  return {
    chain,
    contract: card.contract,
    token_id: card.tokenId,
    owner: card.owner,
    sender: card.sender,
    mint_tx_hash: card.mintTxHash,
    last_tx_hash: card.lastTxHash,
    minted_at: card.mintedAt,
    minted_block: card.mintedBlock,
    updated_at: card.updatedAt,
    updated_block: card.updatedBlock,
    updated_log_index: card.updatedLogIndex,
    burned: card.burned ? 1 : 0,
  };
}
