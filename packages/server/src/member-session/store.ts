import type { Db } from '../store/database.ts';
import type { UserRow, WalletSessionRow } from '../store/schema.ts';

export async function insertSession(
  db: Db,
  row: { id: string; token_hash: string; user_id: string; created_at: number; expires_at: number; user_agent: string | null },
): Promise<void> {
  await db.insertInto('wallet_sessions').values({ ...row, revoked_at: null }).execute();
}

/** The session of a token hash with its member, whatever its state. */
export async function findSessionByTokenHash(
  db: Db,
  tokenHash: string,
): Promise<(UserRow & { session_id: string; expires_at: number | string; revoked_at: number | string | null }) | undefined> {
  return db
    .selectFrom('wallet_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .selectAll('u')
    .select(['s.id as session_id', 's.expires_at', 's.revoked_at'])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Ends a live session; true when this call ended it. */
export async function revokeSession(db: Db, sessionId: string, now: number): Promise<boolean> {
  const result = await db.updateTable('wallet_sessions').set({ revoked_at: now }).where('id', '=', sessionId).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A member's sessions that are neither revoked nor expired at `now`, newest first. */
export async function listLiveSessions(db: Db, userId: string, now: number): Promise<Array<Pick<WalletSessionRow, 'id' | 'created_at' | 'expires_at' | 'user_agent'>>> {
  return db
    .selectFrom('wallet_sessions')
    .select(['id', 'created_at', 'expires_at', 'user_agent'])
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

/** Revokes every live session of a member; how many. */
export async function revokeMemberSessions(db: Db, userId: string, now: number): Promise<number> {
  const result = await db.updateTable('wallet_sessions').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows);
}
