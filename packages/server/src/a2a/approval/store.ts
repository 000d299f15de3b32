import type { Db } from '../../store/database.ts';
import type { UserRow } from '../../store/schema.ts';

export async function findMemberById(db: Db, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
}

/** The member with this (trimmed, lower-case) e-mail. */
export async function findMemberWithEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}
