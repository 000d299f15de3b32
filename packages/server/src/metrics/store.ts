import { sql } from 'kysely';
import type { Db } from '../store/database.ts';

/**
 * Outbox rows waiting for a receipt (split by whether they were ever broadcast), rows whose block
 * is not confirmed yet, and failed rows, by chain.
 */
export async function outboxDepth(db: Db): Promise<Array<{ chain: string; state: 'unsent' | 'sent' | 'unconfirmed' | 'failed'; count: number }>> {
  const rows = await db
    .selectFrom('outbox_transactions')
    .where('status', 'in', ['signed', 'included', 'failed'])
    .select(['chain', 'status', sql<number>`case when last_broadcast_ms is null then 1 else 0 end`.as('unsent'), sql<string>`count(*)`.as('count')])
    .groupBy(['chain', 'status', sql`case when last_broadcast_ms is null then 1 else 0 end`])
    .execute();
  return rows.map((row) => ({
    chain: row.chain,
    state: row.status === 'failed' ? 'failed' : row.status === 'included' ? 'unconfirmed' : Number(row.unsent) === 1 ? 'unsent' : 'sent',
    count: Number(row.count),
  }));
}

/** The oldest transaction without a receipt of each chain that has one. */
export async function oldestPending(db: Db): Promise<Array<{ chain: string; createdMs: number; txHash: string }>> {
  const oldest = await db
    .selectFrom('outbox_transactions')
    .where('status', '=', 'signed')
    .select(['chain', sql<string>`min(created_ms)`.as('created_ms')])
    .groupBy('chain')
    .execute();
  return Promise.all(
    oldest.map(async (row) => {
      const first = await db
        .selectFrom('outbox_transactions')
        .where('status', '=', 'signed')
        .where('chain', '=', row.chain)
        .where('created_ms', '=', Number(row.created_ms))
        .select('tx_hash')
        .executeTakeFirst();
      return { chain: row.chain, createdMs: Number(row.created_ms), txHash: first?.tx_hash ?? '' };
    }),
  );
}

/** The next nonce the outbox would give each account that has transactions without a receipt (at most `limit`). */
export async function pendingAccountNonces(db: Db, limit: number): Promise<Array<{ chain: string; address: string; nextNonce: number }>> {
  // From the rows without a receipt (few, along outbox_status_block) to their accounts' nonces: not
  // every account that ever sent, each looked up in the outbox.
  const rows = await db
    .selectFrom((eb) => eb.selectFrom('outbox_transactions').where('status', '=', 'signed').select(['chain', 'from_address']).distinct().as('t'))
    .innerJoin('account_nonces as n', (join) => join.onRef('n.chain', '=', 't.chain').onRef('n.address', '=', 't.from_address'))
    .select(['n.chain', 'n.address', 'n.next_nonce'])
    .orderBy('n.chain')
    .orderBy('n.address')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ chain: row.chain, address: row.address, nextNonce: Number(row.next_nonce) }));
}

/** The card index position furthest behind on each chain (last block applied; -1 before the first). */
export async function cardIndexPositions(db: Db): Promise<Array<{ chain: string; lastBlock: number }>> {
  const rows = await db
    .selectFrom('card_index_cursors')
    .select(['chain', sql<string>`min(last_block)`.as('last_block')])
    .groupBy('chain')
    .execute();
  return rows.map((row) => ({ chain: row.chain, lastBlock: Number(row.last_block) }));
}
