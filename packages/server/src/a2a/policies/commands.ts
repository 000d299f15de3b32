import { isAddress, type Address } from 'viem';
import { AppError } from '../../errors/app-error.ts';
import type { Db } from '../../store/database.ts';
import { epochSeconds } from '../../store/database.ts';
import { dayKey } from '../../lib/time.ts';
import { Errors } from '../../errors/codes.ts';

/** An operator-blocked address: requests naming it (to, contract, from) or a member holding it answer 6500. */
export interface BlacklistEntry {
  address: string;
  reason: string | null;
  created_at: number;
}

export async function addToBlacklist(db: Db, address: string, reason?: string): Promise<BlacklistEntry> {
  if (!isAddress(address, { strict: false })) throw new AppError(Errors.BadRequest, { detail: `${address} is not an address` });
  const entry = { address: address.toLowerCase(), reason: reason ?? null, created_at: epochSeconds() };
  await db
    .insertInto('a2a_blacklist')
    .values(entry)
    .onConflict((conflict) => conflict.column('address').doUpdateSet({ reason: entry.reason }))
    .execute();
  return entry;
}

export async function removeFromBlacklist(db: Db, address: string): Promise<boolean> {
  const result = await db.deleteFrom('a2a_blacklist').where('address', '=', address.toLowerCase()).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function listBlacklist(db: Db): Promise<BlacklistEntry[]> {
  return db.selectFrom('a2a_blacklist').selectAll().orderBy('created_at').orderBy('address').execute();
}

/** 6500 when any of the addresses is on the blacklist (one query). */
export async function assertNotBlacklisted(db: Db, addresses: Array<Address | null | undefined>): Promise<void> {
  const wanted = [...new Set(addresses.filter((address): address is Address => Boolean(address)).map((address) => address.toLowerCase()))];
  if (wanted.length === 0) return;
  const hit = await db.selectFrom('a2a_blacklist').select('address').where('address', 'in', wanted).executeTakeFirst();
  if (hit) throw new AppError(Errors.Blacklisted, { detail: `${hit.address} is on the blacklist` });
}

export interface DailyCounter {
  userId: string;
  kind: string;
  day: string;
}

/**
 * Counts one use of a daily allowance, atomically: the increment only happens while the count is
 * below `limit`, so parallel approvals (in any number of processes) can never exceed it. 6200 when
 * the allowance is used up. Returns the counter, to give the use back if nothing was sent.
 */
export async function takeDailyAllowance(
  db: Db,
  input: { userId: string; kind: string; limit: number; timeZone: string; now?: Date },
): Promise<DailyCounter | undefined> {
  if (input.limit <= 0) return undefined;
  const counter = { userId: input.userId, kind: input.kind, day: dayKey(input.now ?? new Date(), input.timeZone) };
  await db
    .insertInto('a2a_daily_counts')
    .values({ user_id: counter.userId, kind: counter.kind, day: counter.day, count: 0 })
    .onConflict((conflict) => conflict.columns(['user_id', 'kind', 'day']).doNothing())
    .execute();
  const taken = await db
    .updateTable('a2a_daily_counts')
    .set((eb) => ({ count: eb('count', '+', 1) }))
    .where('user_id', '=', counter.userId)
    .where('kind', '=', counter.kind)
    .where('day', '=', counter.day)
    .where('count', '<', input.limit)
    .executeTakeFirst();
  if (taken.numUpdatedRows !== 1n) throw new AppError(Errors.ExecuteContractDailyLimit, { detail: `at most ${input.limit} a day` });
  return counter;
}

/** Gives back a use whose transaction was refused before anything was sent. */
export async function returnDailyAllowance(db: Db, counter: DailyCounter | undefined): Promise<void> {
  if (!counter) return;
  await db
    .updateTable('a2a_daily_counts')
    .set((eb) => ({ count: eb('count', '-', 1) }))
    .where('user_id', '=', counter.userId)
    .where('kind', '=', counter.kind)
    .where('day', '=', counter.day)
    .where('count', '>', 0)
    .execute();
}
