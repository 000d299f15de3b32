import { isAddress, type Address } from 'viem';
import { AppError } from '../../errors/app-error.ts';
import type { Config } from '../../config/config.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { CardOwnershipReader } from './ownership.ts';
import { erc721Abi, hasCode } from '../chain/token-contracts.ts';
import { Errors } from '../../errors/codes.ts';

export const CARDS_PAGE_SIZE = 100;

/** One entry of B4. */
export interface CardEntry {
  created_at: number;
  updated_at: number;
  created_at_format: string;
  updated_at_format: string;
  card_id: number | string;
  card_uri: string;
  transaction_hash: string;
  owner: string;
  sender: string;
  /** Messenger id of the sender: this service has no messenger accounts, so it is always "". */
  sender_kakao_id: string;
}

export interface CardPage {
  name: string;
  symbol_img: string;
  cards: CardEntry[];
  next_cursor: string;
}

/**
 * B4: the cards `eoa` holds under contract `sca`, 100 a page, id ascending, paged by an opaque
 * keyset cursor (the last card id). Bare errors: 6405 for a malformed sca or one without code,
 * 400 for a malformed eoa or cursor, 6417 for an unknown chain.
 */
export async function queryCards(
  deps: { config: Readonly<Config>; chains: ChainRegistry },
  reader: CardOwnershipReader,
  input: { sca?: string | undefined; eoa?: string | undefined; cursor?: string | undefined; chain?: string | undefined },
): Promise<CardPage> {
  if (!input.sca || !isAddress(input.sca, { strict: false })) throw new AppError(Errors.InvalidContract, { detail: 'sca must be a contract address' });
  if (!input.eoa || !isAddress(input.eoa, { strict: false })) throw new AppError(Errors.BadRequest, { detail: 'eoa must be an address' });
  const afterCardId = input.cursor ? decodeCursor(input.cursor) : null;
  const chain = deps.chains.get(input.chain || 'main');
  const contract = input.sca.toLowerCase() as Address;
  if (!(await hasCode(chain, contract))) throw new AppError(Errors.InvalidContract, { detail: `${contract} has no contract code` });

  const { cards, hasMore } = await reader.listOwnedCards({
    chain,
    contract,
    owner: input.eoa.toLowerCase() as Address,
    afterCardId,
    limit: CARDS_PAGE_SIZE,
  });
  const name = await chain.client.readContract({ address: contract, abi: erc721Abi, functionName: 'name' }).catch(() => '');
  const uris = await Promise.all(
    cards.map((card) =>
      chain.client.readContract({ address: contract, abi: erc721Abi, functionName: 'tokenURI', args: [card.cardId] }).catch(() => ''),
    ),
  );
  const last = cards.at(-1);
  return {
    name,
    symbol_img: deps.config.a2a.cardImages[contract] ?? '',
    cards: cards.map((card, index) => ({
      created_at: card.createdAt,
      updated_at: card.updatedAt,
      created_at_format: isoSeconds(card.createdAt),
      updated_at_format: isoSeconds(card.updatedAt),
      card_id: card.cardId <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(card.cardId) : card.cardId.toString(),
      card_uri: uris[index] ?? '',
      transaction_hash: card.mintTransactionHash,
      owner: card.owner,
      sender: card.sender,
      sender_kakao_id: '',
    })),
    next_cursor: hasMore && last ? encodeCursor(last.cardId) : '',
  };
}

/** `2024-05-01T09:30:00Z`: ISO 8601 in UTC, to the second. */
function isoSeconds(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function encodeCursor(lastCardId: bigint): string {
  return Buffer.from(`c1:${lastCardId}`).toString('base64url');
}

export function decodeCursor(cursor: string): bigint {
  const text = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^c1:(\d{1,78})$/.exec(text);
  if (!match) throw new AppError(Errors.BadRequest, { detail: 'cursor is not a cursor of this query' });
  return BigInt(match[1]!);
}
