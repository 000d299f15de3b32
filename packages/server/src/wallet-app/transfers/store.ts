import type { Db } from '../../store/database.ts';
import type { MemberTransferRow } from '../../store/schema.ts';

/** Stores a send unless the member already has one under this key (the first insert wins), and answers the stored row. */
export async function takeTransferKey(db: Db, row: MemberTransferRow): Promise<MemberTransferRow> {
  await db
    .insertInto('member_transfers')
    .values(row)
    .onConflict((conflict) => conflict.columns(['user_id', 'idempotency_key']).doNothing())
    .execute();
  return (await findTransfer(db, row.user_id, row.idempotency_key))!;
}

/** The member's send under `key`, if any. */
export async function findTransfer(db: Db, userId: string, key: string): Promise<MemberTransferRow | undefined> {
  const row = await db.selectFrom('member_transfers').selectAll().where('user_id', '=', userId).where('idempotency_key', '=', key).executeTakeFirst();
  return row && { ...row, created_ms: Number(row.created_ms) };
}
