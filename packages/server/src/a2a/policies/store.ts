import type { Db } from '../../store/database.ts';

/** An operator-blocked address: requests naming it (to, contract, from) or a member holding it answer 6500. */
export interface BlacklistEntry {
  address: string;
  reason: string | null;
  created_at: number;
}

/** One member's uses of one kind of daily allowance on one day. */
export interface DailyCounter {
  userId: string;
  kind: string;
  day: string;
}

/** Adds the (lower-case) address, or updates the reason of one already listed. */
export async function upsertBlacklistEntry(db: Db, entry: BlacklistEntry): Promise<void> {
  await db
    .insertInto('a2a_blacklist')
    .values(entry)
    .onConflict((conflict) => conflict.column('address').doUpdateSet({ reason: entry.reason }))
    .execute();
}

export async function deleteBlacklistEntry(db: Db, address: string): Promise<boolean> {
  const result = await db.deleteFrom('a2a_blacklist').where('address', '=', address).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function listBlacklistEntries(db: Db): Promise<BlacklistEntry[]> {
  return db.selectFrom('a2a_blacklist').selectAll().orderBy('created_at').orderBy('address').execute();
}

/** The first of the (lower-case) addresses that is on the blacklist, if any (one query). */
export async function findBlacklisted(db: Db, addresses: string[]): Promise<string | undefined> {
  const hit = await db.selectFrom('a2a_blacklist').select('address').where('address', 'in', addresses).executeTakeFirst();
  return hit?.address;
}

/**
 * Counts one use, atomically: the counter row is created at 0 if missing, and the increment only
 * happens while the count is below `limit`. False when the allowance is used up.
 */
export async function incrementDailyCount(db: Db, counter: DailyCounter, limit: number): Promise<boolean> {
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
    .where('count', '<', limit)
    .executeTakeFirst();
  return taken.numUpdatedRows === 1n;
}

/** Takes back one use, never below 0. */
export async function decrementDailyCount(db: Db, counter: DailyCounter): Promise<void> {
  await db
    .updateTable('a2a_daily_counts')
    .set((eb) => ({ count: eb('count', '-', 1) }))
    .where('user_id', '=', counter.userId)
    .where('kind', '=', counter.kind)
    .where('day', '=', counter.day)
    .where('count', '>', 0)
    .execute();
}
