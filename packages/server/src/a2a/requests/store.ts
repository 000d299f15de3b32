import { sql, type CompiledQuery, type Insertable } from 'kysely';
import type { Db, Listening, Store } from '../../store/database.ts';
import { REQUEST_CHANGED_CHANNEL } from '../../store/migrations/017-request-change-notify.ts';
import type { A2aRequestRow, A2aRequestTable } from '../../store/schema.ts';

/**
 * Reads and state changes of App2App requests. Every change is one conditional UPDATE whose WHERE
 * states the states it may start from, so two processes (or two calls) racing on one key cannot
 * both win: the loser sees 0 updated rows.
 */

const OPEN_STATES = ['prepared', 'requested'] as const;

/**
 * Seconds past `expiration_time` in which an approval that claimed the request in time may still
 * finish it. The member confirmed before the key expired and the transaction may already be on its
 * way, so until then the request reads as open (`requested`), never 6001 followed by `completed`.
 * An approval that has not finished by then died before sending anything (a stored transaction
 * completes the request whenever it is read).
 */
export const EXECUTION_GRACE_SECONDS = 300;

/**
 * When an open request counts as expired unfinished (6001): at `expiration_time`, or, once an
 * approval has claimed it, at the end of that approval's grace.
 */
export function expiresAt(row: Pick<A2aRequestRow, 'expiration_time' | 'execution_id'>): number {
  return Number(row.expiration_time) + (row.execution_id === null ? 0 : EXECUTION_GRACE_SECONDS);
}

export async function insertRequest(db: Db, row: Insertable<A2aRequestTable>): Promise<void> {
  await db.insertInto('a2a_requests').values(row).execute();
}

export async function findRequest(db: Db, requestKey: string): Promise<A2aRequestRow | undefined> {
  return db.selectFrom('a2a_requests').selectAll().where('request_key', '=', requestKey).executeTakeFirst();
}

/** prepared → requested (the wallet app opened it). A request already requested only changes viewer. */
export async function markRequested(db: Db, requestKey: string, userId: string, now: number): Promise<boolean> {
  const opened = await db
    .updateTable('a2a_requests')
    .set((eb) => ({ status: 'requested', user_id: userId, updated_at: now, version: eb('version', '+', 1) }))
    .where('request_key', '=', requestKey)
    .where('status', '=', 'prepared')
    .where('expiration_time', '>', now)
    .executeTakeFirst();
  if (opened.numUpdatedRows === 1n) return true;
  const again = await db
    .updateTable('a2a_requests')
    .set({ user_id: userId, updated_at: now })
    .where('request_key', '=', requestKey)
    .where('status', '=', 'requested')
    .where('execution_id', 'is', null)
    .where('expiration_time', '>', now)
    .executeTakeFirst();
  return again.numUpdatedRows === 1n;
}

/**
 * Claims an open, unexpired request for one execution. Exactly one claim per key can succeed;
 * the status stays what it was until the execution finishes.
 */
export async function claimExecution(db: Db, requestKey: string, executionId: string, userId: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('a2a_requests')
    .set({ execution_id: executionId, user_id: userId, updated_at: now })
    .where('request_key', '=', requestKey)
    .where('status', 'in', OPEN_STATES)
    .where('execution_id', 'is', null)
    .where('expiration_time', '>', now)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** The claimed execution gave up before anything was sent: the request is open again as it was. */
export async function releaseExecution(db: Db, requestKey: string, executionId: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('a2a_requests')
    .set({ execution_id: null, updated_at: now })
    .where('request_key', '=', requestKey)
    .where('execution_id', '=', executionId)
    .where('status', 'in', OPEN_STATES)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** The claimed execution finished: completed with its result. */
export async function completeRequest(db: Db, requestKey: string, executionId: string, result: unknown, now: number): Promise<boolean> {
  const updated = await db
    .updateTable('a2a_requests')
    .set((eb) => ({
      status: 'completed',
      result: JSON.stringify(result),
      finished_at: now,
      updated_at: now,
      version: eb('version', '+', 1),
    }))
    .where('request_key', '=', requestKey)
    .where('execution_id', '=', executionId)
    .where('status', 'in', OPEN_STATES)
    .executeTakeFirst();
  return updated.numUpdatedRows === 1n;
}

/** The claimed execution failed: error, with the code and message the result will show. */
export async function failRequest(
  db: Db,
  requestKey: string,
  executionId: string,
  error: { code: number; message: string },
  now: number,
): Promise<boolean> {
  const updated = await db
    .updateTable('a2a_requests')
    .set((eb) => ({
      status: 'error',
      error_code: error.code,
      error_message: error.message,
      finished_at: now,
      updated_at: now,
      version: eb('version', '+', 1),
    }))
    .where('request_key', '=', requestKey)
    .where('execution_id', '=', executionId)
    .where('status', 'in', OPEN_STATES)
    .executeTakeFirst();
  return updated.numUpdatedRows === 1n;
}

/** prepared or requested → canceled, unless an approval already claimed it or it expired. */
export async function cancelRequest(db: Db, requestKey: string, userId: string | null, now: number): Promise<boolean> {
  const updated = await db
    .updateTable('a2a_requests')
    .set((eb) => ({
      status: 'canceled',
      ...(userId ? { user_id: userId } : {}),
      finished_at: now,
      updated_at: now,
      version: eb('version', '+', 1),
    }))
    .where('request_key', '=', requestKey)
    .where('status', 'in', OPEN_STATES)
    .where('execution_id', 'is', null)
    .where('expiration_time', '>', now)
    .executeTakeFirst();
  return updated.numUpdatedRows === 1n;
}

/**
 * Deletes requests past their retention: finished ones `retentionSeconds` after they finished,
 * unfinished ones `retentionSeconds` after they expired (see expiresAt). Returns how many went.
 */
export async function purgeRequests(db: Db, retentionSeconds: number, now: number): Promise<number> {
  const cutoff = now - retentionSeconds;
  const result = await db
    .deleteFrom('a2a_requests')
    .where((eb) =>
      eb.or([
        eb('finished_at', '<', cutoff),
        eb.and([eb('finished_at', 'is', null), eb('execution_id', 'is', null), eb('expiration_time', '<', cutoff)]),
        eb.and([eb('finished_at', 'is', null), eb('execution_id', 'is not', null), eb('expiration_time', '<', cutoff - EXECUTION_GRACE_SECONDS)]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The outbox row that sends a request's transaction (its idempotency key is the request key). */
export interface OutboxState {
  txHash: string;
  status: string;
  receiptStatus: string | null;
}

export async function findOutboxState(db: Db, requestKey: string): Promise<OutboxState | undefined> {
  const row = await db
    .selectFrom('outbox_transactions')
    .select(['tx_hash', 'status', 'receipt_status'])
    .where('idempotency_key', '=', requestKey)
    .executeTakeFirst();
  return row && { txHash: row.tx_hash, status: row.status, receiptStatus: row.receipt_status };
}

/** The columns a request's answer (B3) is made of: a poll reads these and not the rest (the action, for one). */
const PRESENTED_COLUMNS = ['request_key', 'type', 'status', 'execution_id', 'result', 'error_code', 'error_message', 'version', 'expiration_time', 'finished_at', 'updated_at'] as const;
export type PresentedRequestRow = Pick<A2aRequestRow, (typeof PRESENTED_COLUMNS)[number]>;

/**
 * A request and the outbox state of the transaction sent under its key, in one query: what B3 reads
 * at every poll. `outbox` is undefined when no transaction was stored under the key.
 */
export async function findRequestWithOutbox(db: Db, requestKey: string): Promise<{ row: PresentedRequestRow; outbox: OutboxState | undefined } | undefined> {
  let compiled = requestWithOutboxQueries.get(db);
  if (!compiled) {
    compiled = requestWithOutboxQuery(db, '').compile();
    requestWithOutboxQueries.set(db, compiled);
  }
  // Built once per database handle and run with this key: building and compiling the query cost
  // as much CPU as running it, on the path every BApp polls.
  const found = (await db.executeQuery<RequestWithOutboxRow>({ ...compiled, parameters: [requestKey] })).rows[0];
  if (!found) return undefined;
  const { outbox_tx_hash: txHash, outbox_status: status, outbox_receipt_status: receiptStatus, ...row } = found;
  return { row, outbox: txHash !== null && status !== null ? { txHash, status, receiptStatus } : undefined };
}

function requestWithOutboxQuery(db: Db, requestKey: string) {
  return db
    .selectFrom('a2a_requests as r')
    .leftJoin('outbox_transactions as o', 'o.idempotency_key', 'r.request_key')
    .select(PRESENTED_COLUMNS.map((column) => `r.${column}` as const))
    .select(['o.tx_hash as outbox_tx_hash', 'o.status as outbox_status', 'o.receipt_status as outbox_receipt_status'])
    .where('r.request_key', '=', requestKey);
}

type RequestWithOutboxRow = Awaited<ReturnType<ReturnType<typeof requestWithOutboxQuery>['executeTakeFirstOrThrow']>>;
const requestWithOutboxQueries = new WeakMap<Db, CompiledQuery<RequestWithOutboxRow>>();

/** The version and outbox state of keys: what long-polls compare to see a change. */
export async function changeMarkers(db: Db, requestKeys: string[]): Promise<Map<string, string>> {
  const markers = new Map<string, string>();
  for (let start = 0; start < requestKeys.length; start += 500) {
    const rows = await db
      .selectFrom('a2a_requests as r')
      .leftJoin('outbox_transactions as o', 'o.idempotency_key', 'r.request_key')
      .select(['r.request_key', 'r.version', 'o.status as outbox_status', 'o.receipt_status'])
      .where('r.request_key', 'in', requestKeys.slice(start, start + 500))
      .execute();
    for (const row of rows) markers.set(row.request_key, changeMarker(row.version, row.outbox_status, row.receipt_status));
  }
  return markers;
}

export function changeMarker(version: number, outboxStatus: string | null | undefined, receiptStatus: string | null | undefined): string {
  return `${Number(version)}|${outboxStatus ?? ''}|${receiptStatus ?? ''}`;
}

/**
 * On PostgreSQL, calls `onChange` with the key of every request that changes in any process (the
 * triggers of migration 017); resolves to undefined on SQLite, where nothing announces them.
 */
export async function listenForRequestChanges(store: Store, onChange: (requestKey: string) => void): Promise<Listening | undefined> {
  return store.listen?.(REQUEST_CHANGED_CHANNEL, onChange);
}

/** The SQL function the temporary triggers of watchOwnRequestWrites call with a request key. */
const REQUEST_WRITTEN_FUNCTION = 'a2a_request_written';

/**
 * On SQLite, calls `onWrite` with the key of every request this process's connection writes (and of
 * every request whose transaction's outbox state it changes), synchronously, from temporary
 * triggers: like PostgreSQL's triggers (migration 017), no writer can forget it. Writes of other
 * connections are seen by Store.dataVersion. Resolves to what stops it; undefined on PostgreSQL.
 */
export async function watchOwnRequestWrites(store: Store, onWrite: (requestKey: string) => void): Promise<(() => void) | undefined> {
  if (!store.onFunctionCall) return undefined;
  const stop = store.onFunctionCall(REQUEST_WRITTEN_FUNCTION, onWrite);
  const triggers = [
    sql`create temp trigger if not exists a2a_request_written_insert after insert on a2a_requests begin select a2a_request_written(new.request_key); end`,
    sql`create temp trigger if not exists a2a_request_written_update after update on a2a_requests begin select a2a_request_written(new.request_key); end`,
    sql`create temp trigger if not exists a2a_request_written_delete after delete on a2a_requests begin select a2a_request_written(old.request_key); end`,
    sql`create temp trigger if not exists a2a_request_transaction_written after update on outbox_transactions
      when new.idempotency_key is not null and (new.status is not old.status or new.receipt_status is not old.receipt_status)
      begin select a2a_request_written(new.idempotency_key); end`,
  ];
  for (const trigger of triggers) await trigger.execute(store.db);
  return stop;
}
