import { AppError } from '../../errors/app-error.ts';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/database.ts';
import { epochSeconds } from '../../store/database.ts';
import { isTransactionType, type RequestType } from './actions.ts';
import { changeMarker, completeRequest, expiresAt, findOutboxState, findRequest, findRequestWithOutbox, type OutboxState, type PresentedRequestRow } from './store.ts';
import { keyedErrorBody } from './errors.ts';
import { normalizeRequestKey } from './keys.ts';
import { Errors } from '../../errors/codes.ts';
import type { RequestOutcome, ResultBody } from './schema.ts';

/** What an approval stores as the outcome of a completed request. */
export interface StoredOutcome {
  result: Record<string, unknown>;
  ci_hash?: string;
}

export type TransactionStatus = 'pending' | 'success' | 'fail';

/** One answer of B3, ready to send, with what long-polls need to compare answers. */
export interface ResultAnswer {
  httpStatus: 200 | 400;
  body: ResultBody;
  /** Nothing about this answer can change any more (finished, expired or unknown). */
  terminal: boolean;
  /** Equal for two answers that a BApp would see as the same state. */
  presented: string;
  /** The store's change marker for the key (see changeMarkers), or null for unknown keys. */
  marker: string | null;
  /** Epoch seconds at which an open request expires; a long-poll wakes then. */
  expiresAt: number | null;
  /** Epoch seconds after which the key answers 6000 (retention ended), for answers that can still be read. */
  readableUntil: number | null;
}

/**
 * B3: the state of a request as a BApp sees it. Unknown (or past retention) keys answer 6000 bare;
 * a key that expired unfinished and a request that failed answer the keyed error body; completed
 * transactions read their status from the outbox row at each call.
 */
export async function readResult(deps: { config: Readonly<Config>; store: Store }, requestKeyInput: unknown, now = epochSeconds()): Promise<ResultAnswer> {
  const requestKey = normalizeRequestKey(requestKeyInput);
  // One query per poll: the request and its transaction's state together.
  const found = requestKey ? await findRequestWithOutbox(deps.store.db, requestKey) : undefined;
  if (!found) return unknownKey();
  return presentRequest(deps, found.row, now, found);
}

/** `read`: the outbox state already read with the row (findRequestWithOutbox); else it is read here. */
export async function presentRequest(
  deps: { config: Readonly<Config>; store: Store },
  row: PresentedRequestRow,
  now = epochSeconds(),
  read?: { outbox: OutboxState | undefined },
): Promise<ResultAnswer> {
  const retention = deps.config.a2a.resultRetentionSeconds;
  const base = { request_key: row.request_key, expiration_time: Number(row.expiration_time) };
  const open = row.status === 'prepared' || row.status === 'requested';
  let outbox = !isTransactionType(row.type as RequestType) ? undefined : read ? read.outbox : await findOutboxState(deps.store.db, row.request_key);

  if (open && row.execution_id && outbox) {
    // The transaction was stored but the approval did not record completion (it crashed, or is
    // about to): the outbox row is the truth.
    await completeRequest(deps.store.db, row.request_key, row.execution_id, { result: { tx_hash: outbox.txHash } }, now);
    const fresh = await findRequest(deps.store.db, row.request_key);
    if (!fresh) return unknownKey();
    row = fresh;
    outbox = await findOutboxState(deps.store.db, row.request_key);
  }
  const marker = changeMarker(row.version, outbox?.status, outbox?.receiptStatus);

  if (row.status === 'prepared' || row.status === 'requested') {
    const expiry = expiresAt(row);
    if (now >= expiry) {
      if (now > expiry + retention) return unknownKey();
      const body = keyedErrorBody(row.request_key, base.expiration_time, Errors.RequestKeyExpired);
      const readableUntil = expiry + retention;
      return { httpStatus: 400, body: { ...body }, terminal: true, presented: '400|error|6001', marker, expiresAt: null, readableUntil };
    }
    const body = { ...base, status: row.status };
    return { httpStatus: 200, body, terminal: false, presented: `200|${row.status}`, marker, expiresAt: expiry, readableUntil: null };
  }
  const readableUntil = Number(row.finished_at ?? row.updated_at) + retention;
  if (now > readableUntil) return unknownKey();

  switch (row.status) {
    case 'canceled':
      return { httpStatus: 200, body: { ...base, status: 'canceled' as const }, terminal: true, presented: '200|canceled', marker, expiresAt: null, readableUntil };
    case 'error': {
      const code = row.error_code ?? Errors.InternalError;
      const body = keyedErrorBody(row.request_key, base.expiration_time, code, row.error_message);
      return { httpStatus: 400, body: { ...body }, terminal: true, presented: `400|error|${code}`, marker, expiresAt: null, readableUntil };
    }
    case 'completed': {
      const outcome = JSON.parse(row.result ?? '{"result":{}}') as StoredOutcome;
      let result = outcome.result;
      let terminal = true;
      if (isTransactionType(row.type as RequestType)) {
        const status = transactionStatusOf(outbox);
        result = { ...result, status };
        terminal = status !== 'pending';
      }
      const body = { ...base, status: 'completed' as const, result: result as RequestOutcome, ...(outcome.ci_hash ? { ci_hash: outcome.ci_hash } : {}) };
      return { httpStatus: 200, body, terminal, presented: `200|completed|${String(result.status ?? '')}`, marker, expiresAt: null, readableUntil };
    }
  }
}

function unknownKey(): ResultAnswer {
  return { httpStatus: 400, body: new AppError(Errors.RequestKeyUnknown).toBody(), terminal: true, presented: '400|6000', marker: null, expiresAt: null, readableUntil: null };
}

/** pending until the receipt is in; success or fail from it (a transaction that can never be mined fails). */
export function transactionStatusOf(outbox: OutboxState | undefined): TransactionStatus {
  if (!outbox) return 'pending';
  if (outbox.status === 'failed') return 'fail';
  if (outbox.status !== 'mined') return 'pending';
  return outbox.receiptStatus === 'success' ? 'success' : 'fail';
}
