import { sql, type SqlBool } from 'kysely';
import type { Db } from '../../store/database.ts';

/** How many of the member's latest token sends are looked through for the tokens she holds. */
const SEEN_LIMIT = 200;

/**
 * The ERC-20 contracts (lower-case) the member's transfers name, by chain: her completed App2App
 * `send_token` requests (not of the native coin) and her token sends from the wallet app.
 */
export async function tokensSeenBy(db: Db, userId: string): Promise<Array<{ chain: string; contract: string }>> {
  const [requests, sends] = await Promise.all([
    db
      .selectFrom('a2a_requests')
      .select(['chain', 'action'])
      .where('user_id', '=', userId)
      // The condition of the index that holds only these requests (migration 028), as literals: a
      // store uses a partial index only for a query whose condition is its own.
      .where(sql<SqlBool>`type = 'send_token' and status = 'completed'`)
      .orderBy('created_at', 'desc')
      .limit(SEEN_LIMIT)
      .execute(),
    db.selectFrom('member_transfers').select(['chain', 'token']).distinct().where('user_id', '=', userId).where('token', 'is not', null).limit(SEEN_LIMIT).execute(),
  ]);
  const seen = sends.map((row) => ({ chain: row.chain, contract: row.token! }));
  for (const row of requests) {
    const action = JSON.parse(row.action) as { contract?: string; native?: boolean };
    if (action.contract && !action.native) seen.push({ chain: row.chain, contract: action.contract.toLowerCase() });
  }
  return seen;
}
