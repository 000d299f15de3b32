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
