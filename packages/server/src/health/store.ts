import { sql } from 'kysely';
import type { Db } from '../store/database.ts';

/** When the oldest outbox transaction still without a receipt was stored (epoch ms), if any. */
export async function oldestUnminedCreatedMs(db: Db): Promise<number | undefined> {
  const row = await db.selectFrom('outbox_transactions').where('status', '=', 'signed').select(sql<string | null>`min(created_ms)`.as('created_ms')).executeTakeFirst();
  return row?.created_ms === null || row?.created_ms === undefined ? undefined : Number(row.created_ms);
}
