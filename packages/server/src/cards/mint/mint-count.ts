import { sql } from 'kysely';
import { AppError } from '../../errors/app-error.ts';
import type { Db, DbTransaction } from '../../store/database.ts';
import type { PartnerRow } from '../../store/schema.ts';
import { monthKey } from '../../lib/time.ts';
import { Errors } from '../../errors/codes.ts';

/** Cards a partner minted in the month of `now` (mint_count resets on the 1st, configured time zone). */
export function currentMintCount(partner: Pick<PartnerRow, 'mint_count' | 'mint_period'>, timeZone: string, now = new Date()): number {
  return partner.mint_period === monthKey(now, timeZone) ? Number(partner.mint_count) : 0;
}

/**
 * Counts `cards` against the partner's monthly limit, atomically: one guarded UPDATE that starts
 * the count afresh in a new month, so two processes can never together pass mint_limit. Throws
 * 4080 when the cards do not fit. Returns the period they were counted in.
 */
export async function reserveMintCount(trx: Db | DbTransaction, partnerId: string, cards: number, period: string): Promise<void> {
  const counted = sql<number>`case when mint_period = ${period} then mint_count else 0 end`;
  const result = await trx
    .updateTable('partners')
    .set({ mint_count: sql`${counted} + ${cards}`, mint_period: period })
    .where('id', '=', partnerId)
    .where(sql<boolean>`${counted} + ${cards} <= mint_limit`)
    .executeTakeFirst();
  if (result.numUpdatedRows !== 1n) throw new AppError(Errors.MintMonthlyLimit);
}

/** Gives back cards that were counted but not minted (a failed batch), in the month they were counted in. */
export async function releaseMintCount(trx: Db | DbTransaction, partnerId: string, cards: number, period: string): Promise<void> {
  await trx
    .updateTable('partners')
    .set({ mint_count: sql`case when mint_count >= ${cards} then mint_count - ${cards} else 0 end` })
    .where('id', '=', partnerId)
    .where('mint_period', '=', period)
    .execute();
}
