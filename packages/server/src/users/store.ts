import type { Db } from '../store/database.ts';
import type { UserRow } from '../store/schema.ts';

/** The member of an e-mail as stored (trimmed, lower case). */
export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

/** Whether a member of this name (normalized) and E.164 phone exists. */
export async function memberExists(db: Db, name: string, phone: string): Promise<boolean> {
  return Boolean(await db.selectFrom('users').select('id').where('phone', '=', phone).where('name', '=', name).executeTakeFirst());
}

export async function insertUser(db: Db, row: UserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

/** Marks every invite of a person used (the person signed up and took the reserved wallet). */
export async function markPersonInvitesUsed(db: Db, person: { name: string; phone: string }, now: number): Promise<void> {
  await db.updateTable('person_invites').set({ used_at: now }).where('phone', '=', person.phone).where('name', '=', person.name).where('used_at', 'is', null).execute();
}

export async function setChainAddresses(
  db: Db,
  userId: string,
  addresses: { bitcoin_address: string; solana_address: string; tron_address: string; xrpl_address: string },
): Promise<void> {
  await db.updateTable('users').set(addresses).where('id', '=', userId).execute();
}

/** The member of a ci, if any. */
export async function findUserByCi(db: Db, ci: string): Promise<Pick<UserRow, 'id'> | undefined> {
  return db.selectFrom('users').select('id').where('ci', '=', ci).executeTakeFirst();
}

/**
 * Whether a partner's invite of this person, made since `since`, still waits for its reserved wallet
 * (a card to them is being minted right now).
 */
export async function inviteAwaitsWallet(db: Db, person: { name: string; phone: string }, since: number): Promise<boolean> {
  const row = await db
    .selectFrom('person_invites')
    .select('id')
    .where('phone', '=', person.phone)
    .where('name', '=', person.name)
    .where('reserved_wallet_id', 'is', null)
    .where('used_at', 'is', null)
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return Boolean(row);
}
