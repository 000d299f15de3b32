import { isAddress, type Address } from 'viem';
import { AppError } from '../../errors/app-error.ts';
import type { Db } from '../../store/database.ts';
import { epochSeconds } from '../../store/database.ts';
import { dayKey } from '../../lib/time.ts';
import { Errors } from '../../errors/codes.ts';
import {
  decrementDailyCount,
  deleteBlacklistEntry,
  findBlacklisted,
  incrementDailyCount,
  listBlacklistEntries,
  upsertBlacklistEntry,
  type BlacklistEntry,
  type DailyCounter,
} from './store.ts';

export async function addToBlacklist(db: Db, address: string, reason?: string): Promise<BlacklistEntry> {
  if (!isAddress(address, { strict: false })) throw new AppError(Errors.BadRequest, { detail: `${address} is not an address` });
  const entry = { address: address.toLowerCase(), reason: reason ?? null, created_at: epochSeconds() };
  await upsertBlacklistEntry(db, entry);
  return entry;
}

export async function removeFromBlacklist(db: Db, address: string): Promise<boolean> {
  return deleteBlacklistEntry(db, address.toLowerCase());
}

export async function listBlacklist(db: Db): Promise<BlacklistEntry[]> {
  return listBlacklistEntries(db);
}

/** 6500 when any of the addresses is on the blacklist (one query). */
export async function assertNotBlacklisted(db: Db, addresses: Array<Address | null | undefined>): Promise<void> {
  const wanted = [...new Set(addresses.filter((address): address is Address => Boolean(address)).map((address) => address.toLowerCase()))];
  if (wanted.length === 0) return;
  const hit = await findBlacklisted(db, wanted);
  if (hit) throw new AppError(Errors.Blacklisted, { detail: `${hit} is on the blacklist` });
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
  if (!(await incrementDailyCount(db, counter, input.limit))) throw new AppError(Errors.ExecuteContractDailyLimit, { detail: `at most ${input.limit} a day` });
  return counter;
}

/** Gives back a use whose transaction was refused before anything was sent. */
export async function returnDailyAllowance(db: Db, counter: DailyCounter | undefined): Promise<void> {
  if (!counter) return;
  await decrementDailyCount(db, counter);
}
