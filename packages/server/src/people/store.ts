import { sql } from 'kysely';
import type { Db, DbTransaction } from '../store/database.ts';
import type { PersonInviteRow, ReservedWalletRow } from '../store/schema.ts';

/** One row of `invite_counts`. */
export interface InviteCounter {
  kind: 'sender_day' | 'receiver_day' | 'receiver_month';
  /** Partner id (sender_day) or E.164 phone (receiver_*). */
  subject: string;
  /** YYYY-MM-DD or YYYY-MM in the configured time zone. */
  period: string;
}

/** A number of uses of one counter, taken or to be given back. */
export interface CounterUse extends InviteCounter {
  count: number;
}

const PHONES_PER_QUERY = 500;

/** Users with one of these phones, oldest first. */
export async function findUsersByPhones(db: Db, phones: readonly string[]): Promise<Array<{ id: string; name: string; phone: string; main_address: string }>> {
  const found = [];
  for (let start = 0; start < phones.length; start += PHONES_PER_QUERY) {
    const rows = await db
      .selectFrom('users')
      .select(['id', 'name', 'phone', 'main_address'])
      .where('phone', 'in', phones.slice(start, start + PHONES_PER_QUERY))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    found.push(...rows);
  }
  return found;
}

/** The unclaimed wallet kept for a person, if any (name as normalizePersonName gives it, phone E.164). */
export async function findReservedWallet(db: Db, person: { name: string; phone: string }): Promise<ReservedWalletRow | undefined> {
  return db
    .selectFrom('reserved_wallets')
    .selectAll()
    .where('phone', '=', person.phone)
    .where('name', '=', person.name)
    .where('claimed_user_id', 'is', null)
    .executeTakeFirst();
}

export async function insertReservedWallet(db: Db, row: ReservedWalletRow): Promise<void> {
  await db.insertInto('reserved_wallets').values(row).execute();
}

/**
 * Records that a member now owns a reserved wallet, guarded so only one sign-up can: false when the
 * wallet was claimed already.
 */
export async function markReservedWalletClaimed(db: Db, walletId: string, userId: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('reserved_wallets')
    .set({ claimed_user_id: userId, claimed_at: now })
    .where('id', '=', walletId)
    .where('claimed_user_id', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Makes sure each counter has a row (at 0), so the guarded updates below find one. */
export async function ensureInviteCounters(db: Db, counters: readonly InviteCounter[]): Promise<void> {
  for (let start = 0; start < counters.length; start += 200) {
    await db
      .insertInto('invite_counts')
      .values(counters.slice(start, start + 200).map((counter) => ({ kind: counter.kind, subject: counter.subject, period: counter.period, count: 0 })))
      .onConflict((conflict) => conflict.columns(['kind', 'subject', 'period']).doNothing())
      .execute();
  }
}

/** Adds `use.count` to a counter unless that would pass `limit`; whether it did. */
export async function addToInviteCounter(db: Db, use: CounterUse, limit: number): Promise<boolean> {
  const result = await db
    .updateTable('invite_counts')
    .set((eb) => ({ count: eb('count', '+', use.count) }))
    .where('kind', '=', use.kind)
    .where('subject', '=', use.subject)
    .where('period', '=', use.period)
    .where((eb) => eb(eb('count', '+', use.count), '<=', limit))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Takes `use.count` off a counter, never below 0. */
export async function subtractFromInviteCounter(db: Db, use: CounterUse): Promise<void> {
  await db
    .updateTable('invite_counts')
    .set({ count: sql<number>`case when ${sql.ref('count')} >= ${use.count} then ${sql.ref('count')} - ${use.count} else 0 end` })
    .where('kind', '=', use.kind)
    .where('subject', '=', use.subject)
    .where('period', '=', use.period)
    .execute();
}

/** Inserts the invites a partner has none of yet (one per partner, phone and name); the ones inserted. */
export async function insertNewInvites(db: Db, rows: PersonInviteRow[]): Promise<Array<Pick<PersonInviteRow, 'id' | 'phone' | 'name'>>> {
  return db
    .insertInto('person_invites')
    .values(rows)
    .onConflict((conflict) => conflict.columns(['partner_id', 'phone', 'name']).doNothing())
    .returning(['id', 'phone', 'name'])
    .execute();
}

export async function setInviteCharges(db: Db, inviteId: string, charges: readonly InviteCounter[]): Promise<void> {
  await db.updateTable('person_invites').set({ quota_charges: JSON.stringify(charges) }).where('id', '=', inviteId).execute();
}

export async function setInviteWallet(db: Db, inviteId: string, walletId: string): Promise<void> {
  await db.updateTable('person_invites').set({ reserved_wallet_id: walletId }).where('id', '=', inviteId).execute();
}

/** Marks an unsent invite sent; false when it was sent (or gone) already. */
export async function markInviteSent(db: Db, inviteId: string, sentAt: number): Promise<boolean> {
  const marked = await db.updateTable('person_invites').set({ sent_at: sentAt }).where('id', '=', inviteId).where('sent_at', 'is', null).executeTakeFirst();
  return marked.numUpdatedRows === 1n;
}

/** Deletes an invite still in the state `sentAt` (null: unsent); whether it did. */
export async function deleteInvite(db: Db, inviteId: string, sentAt: number | null): Promise<boolean> {
  const deleted = await db
    .deleteFrom('person_invites')
    .where('id', '=', inviteId)
    .where('sent_at', sentAt === null ? 'is' : '=', sentAt)
    .executeTakeFirst();
  return deleted.numDeletedRows === 1n;
}

/** This partner's unsent invite of a person created before `before`, if any. */
export async function findUnsentInviteBefore(
  db: Db,
  input: { partnerId: string; person: { name: string; phone: string }; before: number },
): Promise<Pick<PersonInviteRow, 'id' | 'quota_charges'> | undefined> {
  return db
    .selectFrom('person_invites')
    .select(['id', 'quota_charges'])
    .where('partner_id', '=', input.partnerId)
    .where('phone', '=', input.person.phone)
    .where('name', '=', input.person.name)
    .where('sent_at', 'is', null)
    .where('created_at', '<', input.before)
    .executeTakeFirst();
}

/** Gives an unsent invite a new id and start, guarded by its old id; whether it did. */
export async function renewUnsentInvite(db: Db, oldId: string, newId: string, now: number): Promise<boolean> {
  const taken = await db
    .updateTable('person_invites')
    .set({ id: newId, created_at: now, quota_charges: null })
    .where('id', '=', oldId)
    .where('sent_at', 'is', null)
    .executeTakeFirst();
  return taken.numUpdatedRows === 1n;
}

/** The invites that named a reserved wallet: who invited the person who took it. */
export function findInvitesOfWallet(db: Db | DbTransaction, walletId: string): Promise<Array<Pick<PersonInviteRow, 'id' | 'partner_id'>>> {
  return db.selectFrom('person_invites').select(['id', 'partner_id']).where('reserved_wallet_id', '=', walletId).execute();
}
