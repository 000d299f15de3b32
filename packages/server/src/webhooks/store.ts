import { sql } from 'kysely';
import type { Db, DbTransaction, Store } from '../store/database.ts';
import { columnsOf, preparedQuery } from '../store/prepared-query.ts';
import type { WebhookAttemptRow, WebhookEndpointRow, WebhookMessageRow } from '../store/schema.ts';

/**
 * Inserts the endpoint unless its partner already has `max` live ones; true when inserted. The count
 * and the insert are one transaction after the partner's row is locked (PostgreSQL; SQLite has one
 * writer), so concurrent creates of one partner, on any instance, never pass the limit together.
 */
export async function insertEndpointWithinLimit(store: Store, row: WebhookEndpointRow, max: number): Promise<boolean> {
  return store.db.transaction().execute(async (trx) => {
    if (store.dialect === 'postgres') await trx.selectFrom('partners').select('id').where('id', '=', row.partner_id).forUpdate().execute();
    if ((await listEndpoints(trx, row.partner_id)).length >= max) return false;
    await trx.insertInto('webhook_endpoints').values(row).execute();
    return true;
  });
}

/** A partner's endpoints that are not deleted, oldest first. */
export async function listEndpoints(db: Db | DbTransaction, partnerId: string): Promise<WebhookEndpointRow[]> {
  return (await endpointsQuery(db, { partnerId })).rows;
}
// Read by every mined transaction that may raise an event. Its columns named, so that PostgreSQL keeps it parsed (prepared-query.ts).
const ENDPOINT_COLUMNS = columnsOf<WebhookEndpointRow>({
  id: true, partner_id: true, url: true, events: true, secret: true, previous_secret: true, previous_secret_until_ms: true, secret_master_key_id: true, created_at_ms: true, deleted_at_ms: true,
});
const endpointsQuery = preparedQuery({ partnerId: true }, (db, { partnerId }: { partnerId: string }) =>
  db.selectFrom('webhook_endpoints').select(ENDPOINT_COLUMNS).where('partner_id', '=', partnerId).where('deleted_at_ms', 'is', null).orderBy('created_at_ms').orderBy('id'),
);

export function findEndpoint(db: Db, partnerId: string, endpointId: string): Promise<WebhookEndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpointId).where('partner_id', '=', partnerId).where('deleted_at_ms', 'is', null).executeTakeFirst();
}

export function findEndpointById(db: Db, endpointId: string): Promise<WebhookEndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpointId).executeTakeFirst();
}

/** Writes an endpoint's secrets after a rotation (sealed, with until when the previous one signs too). */
export async function setEndpointSecrets(db: Db, endpointId: string, secrets: Pick<WebhookEndpointRow, 'secret' | 'previous_secret' | 'previous_secret_until_ms' | 'secret_master_key_id'>): Promise<void> {
  await db.updateTable('webhook_endpoints').set(secrets).where('id', '=', endpointId).execute();
}

/**
 * Deletes a live endpoint (kept for its log) and fails its undelivered messages, in one transaction;
 * false when it was deleted already (by a call racing this one).
 */
export async function deleteEndpoint(db: Db, endpointId: string, atMs: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const deleted = await trx.updateTable('webhook_endpoints').set({ deleted_at_ms: atMs }).where('id', '=', endpointId).where('deleted_at_ms', 'is', null).executeTakeFirst();
    if (Number(deleted.numUpdatedRows) !== 1) return false;
    await trx.updateTable('webhook_messages').set({ status: 'failed' }).where('endpoint_id', '=', endpointId).where('status', 'in', ['pending', 'held']).execute();
    return true;
  });
}

/** Queues messages (one event, one row per endpoint) with what the event is about; a repeated event key adds nothing. */
export async function insertMessages(db: Db | DbTransaction, rows: WebhookMessageRow[], subjects: string[] = []): Promise<void> {
  if (rows.length === 0) return;
  const inserted = await db.insertInto('webhook_messages').values(rows).onConflict((conflict) => conflict.columns(['endpoint_id', 'event_key']).doNothing()).returning(['id', 'endpoint_id']).execute();
  const subjectRows = inserted.flatMap((message) => subjects.map((subject) => ({ message_id: message.id, endpoint_id: message.endpoint_id, subject })));
  if (subjectRows.length > 0) await db.insertInto('webhook_message_subjects').values(subjectRows).execute();
}

/**
 * Messages due for an attempt: pending, their time come, not leased, and not waiting behind an
 * older unfinished (pending or held) message of the same endpoint (docs/webhooks.md, "Order"):
 * - one about a subject in common (a card, an invite), however long that one takes;
 * - one in line: pending and not failed yet, failed less than `holdMs` ago, or held (waiting for
 *   its transaction) for less than `holdMs`; unless it is itself waiting behind an older message
 *   of its own subject (it will not be attempted before that one, so it holds nothing).
 * So an endpoint that answers gets its messages one at a time in queue order, and a failing
 * message delays the others at most `holdMs`, then retries on its schedule while they go on.
 */
export function dueMessages(db: Db, nowMs: number, holdMs: number, limit: number): Promise<WebhookMessageRow[]> {
  const holdSince = nowMs - holdMs;
  return db
    .selectFrom('webhook_messages as m')
    .selectAll('m')
    .where('m.status', '=', 'pending')
    .where('m.next_attempt_ms', '<=', nowMs)
    .where('m.lease_until_ms', '<', nowMs)
    .where((where) =>
      where.not(
        where.exists(
          where
            .selectFrom('webhook_messages as earlier')
            .select(sql`1`.as('one'))
            .whereRef('earlier.endpoint_id', '=', 'm.endpoint_id')
            .where('earlier.status', 'in', ['pending', 'held'])
            .whereRef('earlier.id', '<', 'm.id')
            .where((hold) =>
              hold.or([
                sharesSubject('earlier.id', 'm.id'),
                hold.and([
                  hold.or([
                    hold.and([hold('earlier.status', '=', 'pending'), hold.or([hold('earlier.first_failed_at_ms', 'is', null), hold('earlier.first_failed_at_ms', '>', holdSince)])]),
                    hold.and([hold('earlier.status', '=', 'held'), hold('earlier.created_at_ms', '>', holdSince)]),
                  ]),
                  hold.not(
                    hold.exists(
                      hold
                        .selectFrom('webhook_messages as before_earlier')
                        .select(sql`1`.as('one'))
                        .whereRef('before_earlier.endpoint_id', '=', 'earlier.endpoint_id')
                        .where('before_earlier.status', 'in', ['pending', 'held'])
                        .whereRef('before_earlier.id', '<', 'earlier.id')
                        .where(sharesSubject('before_earlier.id', 'earlier.id')),
                    ),
                  ),
                ]),
              ]),
            ),
        ),
      ),
    )
    .orderBy('m.next_attempt_ms')
    .limit(limit)
    .execute();
}

/** Whether two messages (columns naming their ids) are about a subject in common. */
function sharesSubject(older: string, newer: string) {
  return sql<boolean>`exists (select 1 from webhook_message_subjects older_subject
    join webhook_message_subjects newer_subject on newer_subject.endpoint_id = older_subject.endpoint_id and newer_subject.subject = older_subject.subject
    where older_subject.message_id = ${sql.ref(older)} and newer_subject.message_id = ${sql.ref(newer)})`;
}

/** Leases a due message to one worker: a guarded update, so of two instances only one gets it. */
export async function leaseMessage(db: Db, messageId: string, holder: string, nowMs: number, leaseUntilMs: number): Promise<boolean> {
  const moved = await db
    .updateTable('webhook_messages')
    .set({ lease_holder: holder, lease_until_ms: leaseUntilMs })
    .where('id', '=', messageId)
    .where('status', '=', 'pending')
    .where('lease_until_ms', '<', nowMs)
    .executeTakeFirst();
  return moved.numUpdatedRows === 1n;
}

/** Records an attempt and the message's next state (delivered, another try at `nextAttemptMs`, or failed), if this worker still holds it. */
export async function recordAttempt(
  db: Db,
  attempt: WebhookAttemptRow,
  holder: string,
  outcome: { status: 'delivered' } | { status: 'pending'; nextAttemptMs: number } | { status: 'failed' },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('webhook_attempts').values(attempt).execute();
    await trx
      .updateTable('webhook_messages')
      .set({
        status: outcome.status,
        attempts: sql`attempts + 1`,
        lease_holder: null,
        lease_until_ms: 0,
        ...(outcome.status === 'delivered' ? {} : { first_failed_at_ms: sql<number>`coalesce(first_failed_at_ms, ${attempt.at_ms})` }),
        ...(outcome.status === 'pending' ? { next_attempt_ms: outcome.nextAttemptMs } : {}),
        ...(outcome.status === 'delivered' ? { delivered_at_ms: attempt.at_ms } : {}),
      })
      .where('id', '=', attempt.message_id)
      .where('lease_holder', '=', holder)
      .execute();
  });
}

/**
 * The newest messages of an endpoint, with their attempts: the delivery log. Two reads: a caller
 * that shows them together reads through a snapshot (Store.readSnapshot), or an attempt recorded in
 * between shows beside its message still pending (PostgreSQL reads each statement afresh).
 */
export async function listDeliveries(db: Db, endpointId: string, limit: number): Promise<Array<WebhookMessageRow & { attemptRows: WebhookAttemptRow[] }>> {
  const messages = await db.selectFrom('webhook_messages').selectAll().where('endpoint_id', '=', endpointId).orderBy('id', 'desc').limit(limit).execute();
  if (messages.length === 0) return [];
  const attempts = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where(
      'message_id',
      'in',
      messages.map((message) => message.id),
    )
    .orderBy('at_ms')
    .orderBy('id')
    .execute();
  return messages.map((message) => ({ ...message, attemptRows: attempts.filter((attempt) => attempt.message_id === message.id) }));
}

export function findMessage(db: Db, endpointId: string, messageId: string): Promise<WebhookMessageRow | undefined> {
  return db.selectFrom('webhook_messages').selectAll().where('id', '=', messageId).where('endpoint_id', '=', endpointId).executeTakeFirst();
}

/** Puts a message back in the queue for an attempt now (manual redelivery). */
export async function requeueMessage(db: Db, messageId: string, nowMs: number): Promise<void> {
  // The lease goes too: an attempt still in flight then records only its attempt (recordAttempt
  // finds the message no longer its own) instead of marking it delivered over the request to send it again.
  await db
    .updateTable('webhook_messages')
    .set({ status: 'pending', next_attempt_ms: nowMs, lease_holder: null, lease_until_ms: 0 })
    .where('id', '=', messageId)
    .execute();
}

/** Forgets delivered and given-up messages made before `beforeMs`, with their attempts. */
export async function deleteFinishedMessagesBefore(db: Db, beforeMs: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const finished = trx.selectFrom('webhook_messages').select('id').where('created_at_ms', '<', beforeMs).where('status', 'in', ['delivered', 'failed']);
    await trx.deleteFrom('webhook_attempts').where('message_id', 'in', finished).execute();
    await trx.deleteFrom('webhook_message_subjects').where('message_id', 'in', finished).execute();
    await trx.deleteFrom('webhook_messages').where('created_at_ms', '<', beforeMs).where('status', 'in', ['delivered', 'failed']).execute();
  });
}

/** A held message whose transaction is final, with what the outbox knows of it. */
export interface SettledHeldMessage {
  outbox_key: string;
  event_type: string;
  payload: string;
  outbox_status: string;
  receipt_status: string | null;
  tx_hash: string;
  chain: string;
  to_address: string | null;
}

/** Held messages whose outbox transaction is mined or failed, one per transaction (all its endpoints get the same body). */
export async function settledHeldMessages(db: Db, limit: number): Promise<SettledHeldMessage[]> {
  const rows = await db
    .selectFrom('webhook_messages as m')
    .innerJoin('outbox_transactions as o', 'o.idempotency_key', 'm.outbox_key')
    .select(['m.outbox_key', 'm.event_type', 'm.payload', 'o.status as outbox_status', 'o.receipt_status', 'o.tx_hash', 'o.chain', 'o.to_address'])
    .where('m.status', '=', 'held')
    .where('o.status', 'in', ['mined', 'failed'])
    .orderBy('m.id')
    .limit(limit)
    .execute();
  const seen = new Set<string>();
  return rows.filter((row) => row.outbox_key !== null && !seen.has(row.outbox_key) && seen.add(row.outbox_key)) as SettledHeldMessage[];
}

/** Lets a transaction's held messages go, with their final body, due now: a guarded update, so a second release changes nothing. */
export async function releaseHeldMessages(db: Db, outboxKey: string, payload: string, nowMs: number): Promise<void> {
  await db.updateTable('webhook_messages').set({ status: 'pending', payload, next_attempt_ms: nowMs }).where('outbox_key', '=', outboxKey).where('status', '=', 'held').execute();
}

/** Forgets a transaction's held messages: it failed, so what they tell of did not happen. */
export async function dropHeldMessages(db: Db, outboxKey: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const held = trx.selectFrom('webhook_messages').select('id').where('outbox_key', '=', outboxKey).where('status', '=', 'held');
    await trx.deleteFrom('webhook_message_subjects').where('message_id', 'in', held).execute();
    await trx.deleteFrom('webhook_messages').where('outbox_key', '=', outboxKey).where('status', '=', 'held').execute();
  });
}
