/**
 * Opaque keyset cursors of the card lists. A cursor is base64url of the last position a page
 * showed: `card:<contract>:<token id>` for card pages, `contract:<contract>` for the contract
 * grouping. They are positions, not snapshots: paging on while cards move never repeats or skips a
 * card that stays put, and needs no server-side state.
 */

/** A cursor this module did not issue (malformed, or of the other list). Callers answer 400. */
export class InvalidCardCursorError extends Error {
  override readonly name = 'InvalidCardCursorError';
  constructor(reason: string, options: { cause?: unknown } = {}) {
    super(`invalid cursor: ${reason}`, options);
  }
}

/** Where a card page ended: the next page starts after this (contract, token id). */
export interface CardPosition {
  contract: string;
  tokenId: number;
}

const MAX_CURSOR_LENGTH = 200;
const CARD_POSITION = /^card:(0x[0-9a-f]{40}):(0|[1-9][0-9]{0,15})$/;
const CONTRACT_POSITION = /^contract:(0x[0-9a-f]{40})$/;

/**
 * The cursor of the page that follows `position`.
 * @example encodeCardCursor({ contract: '0xab…', tokenId: 500 }) // 'Y2FyZDow…'
 */
export function encodeCardCursor(position: CardPosition): string {
  return Buffer.from(`card:${position.contract.toLowerCase()}:${position.tokenId}`, 'utf8').toString('base64url');
}

/** Reads a card cursor back; throws InvalidCardCursorError for anything encodeCardCursor would not produce. */
export function decodeCardCursor(cursor: string): CardPosition {
  const match = CARD_POSITION.exec(decodeText(cursor));
  if (!match) throw new InvalidCardCursorError('not a card list cursor');
  const tokenId = Number(match[2]);
  if (!Number.isSafeInteger(tokenId)) throw new InvalidCardCursorError('card id out of range');
  return { contract: match[1]!, tokenId };
}

/** The cursor of the contract-grouping page that follows `contract`. */
export function encodeContractCursor(contract: string): string {
  return Buffer.from(`contract:${contract.toLowerCase()}`, 'utf8').toString('base64url');
}

/** Reads a contract-grouping cursor back; throws InvalidCardCursorError when malformed. */
export function decodeContractCursor(cursor: string): string {
  const match = CONTRACT_POSITION.exec(decodeText(cursor));
  if (!match) throw new InvalidCardCursorError('not a contract list cursor');
  return match[1]!;
}

function decodeText(cursor: string): string {
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw new InvalidCardCursorError('not base64url');
  }
  const bytes = Buffer.from(cursor, 'base64url');
  // Only the canonical spelling is accepted, so one position has exactly one cursor.
  if (bytes.toString('base64url') !== cursor) throw new InvalidCardCursorError('not canonical base64url');
  return bytes.toString('utf8');
}
