import type { Db } from '../../store/database.ts';
import type { PartnerIdempotencyKeyRow } from '../../store/schema.ts';

/** Claims a key for a call: true when this call inserted the row (nobody held the key). */
export async function claimKey(db: Db, row: Omit<PartnerIdempotencyKeyRow, 'response_status' | 'response_type' | 'response_body'>): Promise<boolean> {
  const inserted = await db
    .insertInto('partner_idempotency_keys')
    .values(row)
    .onConflict((conflict) => conflict.columns(['partner_id', 'idempotency_key']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export function findKey(db: Db, partnerId: string, key: string): Promise<PartnerIdempotencyKeyRow | undefined> {
  return db.selectFrom('partner_idempotency_keys').selectAll().where('partner_id', '=', partnerId).where('idempotency_key', '=', key).executeTakeFirst();
}

/**
 * Takes over a running key whose holder stopped renewing its lease (its process ended): one guarded
 * update on the holder seen, so of two retries doing it at once only one gets it.
 */
export async function takeOverKey(db: Db, partnerId: string, key: string, from: { holder: string }, to: { holder: string; leaseUntilMs: number; nowMs: number }): Promise<boolean> {
  const moved = await db
    .updateTable('partner_idempotency_keys')
    .set({ holder: to.holder, lease_until_ms: to.leaseUntilMs })
    .where('partner_id', '=', partnerId)
    .where('idempotency_key', '=', key)
    .where('state', '=', 'running')
    .where('holder', '=', from.holder)
    .where('lease_until_ms', '<', to.nowMs)
    .executeTakeFirst();
  return moved.numUpdatedRows === 1n;
}

export async function renewLease(db: Db, partnerId: string, key: string, holder: string, leaseUntilMs: number): Promise<void> {
  await db
    .updateTable('partner_idempotency_keys')
    .set({ lease_until_ms: leaseUntilMs })
    .where('partner_id', '=', partnerId)
    .where('idempotency_key', '=', key)
    .where('state', '=', 'running')
    .where('holder', '=', holder)
    .execute();
}

export async function storeAnswer(db: Db, partnerId: string, key: string, holder: string, answer: { status: number; type: string | null; body: string }): Promise<void> {
  await db
    .updateTable('partner_idempotency_keys')
    .set({ state: 'done', response_status: answer.status, response_type: answer.type, response_body: answer.body })
    .where('partner_id', '=', partnerId)
    .where('idempotency_key', '=', key)
    .where('state', '=', 'running')
    .where('holder', '=', holder)
    .execute();
}

/** Lets a key go without an answer (the call failed outside the listed codes): a retry runs again. */
export async function releaseKey(db: Db, partnerId: string, key: string, holder: string): Promise<void> {
  await db
    .deleteFrom('partner_idempotency_keys')
    .where('partner_id', '=', partnerId)
    .where('idempotency_key', '=', key)
    .where('state', '=', 'running')
    .where('holder', '=', holder)
    .execute();
}

/** Forgets keys made before `beforeMs` (running ones only once their lease is over too). */
export async function deleteKeysBefore(db: Db, beforeMs: number, nowMs: number): Promise<number> {
  const deleted = await db
    .deleteFrom('partner_idempotency_keys')
    .where('created_at_ms', '<', beforeMs)
    .where((where) => where.or([where('state', '=', 'done'), where('lease_until_ms', '<', nowMs)]))
    .executeTakeFirst();
  return Number(deleted.numDeletedRows);
}
