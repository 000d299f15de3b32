import { AppError } from '../../errors/app-error.ts';
import { MAX_NFT_ID } from '../ids.ts';
import { Errors } from '../../errors/codes.ts';

/**
 * The opaque keyset cursor of A12: base64url of `bapp:<nft_id>`, the last BApp a page showed. Like
 * the card cursors of A13 (src/card-index/page-cursor.ts) it is a position, not a snapshot.
 */
const BAPP_POSITION = /^bapp:(0|[1-9][0-9]{0,9})$/;

/** @example encodeBappCursor(12) // 'YmFwcDoxMg' */
export function encodeBappCursor(nftId: number): string {
  return Buffer.from(`bapp:${nftId}`, 'utf8').toString('base64url');
}

/** The nft_id an A12 cursor stands on; 400 for anything encodeBappCursor would not produce. */
export function decodeBappCursor(cursor: string): number {
  const bytes = /^[A-Za-z0-9_-]{1,40}$/.test(cursor) ? Buffer.from(cursor, 'base64url') : undefined;
  // Only the canonical spelling is accepted, so one position has exactly one cursor.
  const match = bytes && bytes.toString('base64url') === cursor ? BAPP_POSITION.exec(bytes.toString('utf8')) : null;
  const nftId = match ? Number(match[1]) : NaN;
  if (!(nftId <= MAX_NFT_ID)) throw new AppError(Errors.BadRequest, { detail: 'cursor is not a cursor of this list' });
  return nftId;
}
