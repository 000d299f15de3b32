import { randomBytes } from 'node:crypto';
import type { Db, DbTransaction } from '../store/database.ts';
import type { WebhookEndpointRow, WebhookMessageRow } from '../store/schema.ts';
import { insertMessages, listEndpoints } from './store.ts';

/** The events a partner can receive (docs/webhooks.md has each payload). */
export const WEBHOOK_EVENTS = [
  'card.minted',
  'card.mint_failed',
  'card.sent',
  'card.deleted',
  'escrow.created',
  'escrow.claimed',
  'escrow.cancelled',
  'invite.sent',
  'invite.accepted',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];
/** Sent only by "send test" to the one endpoint asked. */
export const TEST_EVENT = 'webhook.test';

/** A message body: Standard Webhooks' `{ type, timestamp, data }`. */
export function webhookPayload(type: string, data: object, atMs: number): string {
  return JSON.stringify({ type, timestamp: new Date(atMs).toISOString(), data });
}

let lastMs = 0;
let sequence = 0;

/**
 * A message id that sorts in the order this process made them (`msg_`, the time, a counter and 8
 * random bytes): the queue delivers each endpoint's messages in id order.
 */
export function newMessageId(atMs: number): string {
  if (atMs === lastMs) sequence += 1;
  else {
    lastMs = atMs;
    sequence = 0;
  }
  return `msg_${atMs.toString(36).padStart(9, '0')}${sequence.toString(36).padStart(4, '0')}${randomBytes(8).toString('hex')}`;
}

/** The queue row of one message for one endpoint, due now (or held until the transaction `outboxKey` is mined). */
export function newMessageRow(input: { endpointId: string; partnerId: string; type: string; payload: string; atMs: number; eventKey?: string; outboxKey?: string }): WebhookMessageRow {
  return {
    id: newMessageId(input.atMs),
    endpoint_id: input.endpointId,
    partner_id: input.partnerId,
    event_type: input.type,
    payload: input.payload,
    status: input.outboxKey === undefined ? 'pending' : 'held',
    attempts: 0,
    next_attempt_ms: input.atMs,
    lease_holder: null,
    lease_until_ms: 0,
    created_at_ms: input.atMs,
    delivered_at_ms: null,
    event_key: input.eventKey ?? null,
    outbox_key: input.outboxKey ?? null,
    first_failed_at_ms: null,
  };
}

/**
 * What an event is about: each card it names (`card:<chain>:<contract>:<card id>`) or the invite
 * (`invite:<id>`). An endpoint gets the messages of one subject in the order they were queued.
 */
export function eventSubjects(type: string, data: Record<string, unknown>): string[] {
  if (type === 'invite.sent' || type === 'invite.accepted') return [`invite:${String(data.invite_id)}`];
  const cardIds = [
    ...(typeof data.card_id === 'number' ? [data.card_id] : []),
    ...(Array.isArray(data.card_ids) ? (data.card_ids as number[]) : []),
    ...(Array.isArray(data.cards) ? (data.cards as Array<{ card_id: number }>).map((card) => card.card_id) : []),
  ];
  const contract = String(data.contract_address).toLowerCase();
  return [...new Set(cardIds.map((cardId) => `card:${String(data.chain)}:${contract}:${cardId}`))];
}

/**
 * Queues an event for each of the partner's endpoints that takes it. Called with the transaction
 * that makes the change the event tells of, where there is one, so the event is queued exactly
 * when the change is stored.
 *
 * @example
 * await db.transaction().execute(async (trx) => {
 *   if (await markBatchMinted(trx, batch.id, first)) await enqueueWebhookEvent(trx, { partnerId, type: 'card.minted', data });
 * });
 */
export async function enqueueWebhookEvent(
  db: Db | DbTransaction,
  event: {
    partnerId: string;
    type: WebhookEventType;
    data: object;
    atMs?: number;
    /** For an event its cause may report twice: queued once per endpoint whatever the number of calls. */
    eventKey?: string;
    /** Held until this outbox transaction is mined (see holdWebhookEvent). */
    outboxKey?: string;
    /** The partner's endpoints (listEndpoints), read ahead in the same transaction beside the statements before it; read here otherwise. */
    endpoints?: Promise<WebhookEndpointRow[]>;
  },
): Promise<void> {
  const endpoints = (await (event.endpoints ?? listEndpoints(db, event.partnerId))).filter((endpoint) => (JSON.parse(endpoint.events) as string[]).includes(event.type));
  if (endpoints.length === 0) return;
  const atMs = event.atMs ?? Date.now();
  const payload = webhookPayload(event.type, event.data, atMs);
  await insertMessages(
    db,
    endpoints.map((endpoint) => newMessageRow({
        endpointId: endpoint.id,
        partnerId: event.partnerId,
        type: event.type,
        payload,
        atMs,
        ...(event.eventKey === undefined ? {} : { eventKey: event.eventKey }),
        ...(event.outboxKey === undefined ? {} : { outboxKey: event.outboxKey }),
      }),
    ),
    eventSubjects(event.type, event.data as Record<string, unknown>),
  );
}

/** The events held until their transaction is mined: each names the outbox transaction that makes it true. */
export type HeldEventType = Extract<WebhookEventType, 'card.sent' | 'card.deleted' | 'escrow.created' | 'escrow.claimed' | 'escrow.cancelled'>;

/**
 * The `alongside` of an outbox submission (OutboxSubmission.alongside) that holds an event until
 * the transaction is mined: stored in the DB transaction that stores the outbox row, so a process
 * killed at any point after the submission loses neither; release.ts lets it go once the outbox
 * sees the transaction mined (the event's `tx_hash` added then), or drops it when it failed.
 * `escrow.created` and `escrow.cancelled` name the cards asked for; release keeps those the
 * receipt shows moved.
 */
export function holdWebhookEvent(event: { partnerId: string; type: HeldEventType; data: object }): (trx: DbTransaction, row: { idempotency_key: string }) => Promise<void> {
  return (trx, row) => enqueueWebhookEvent(trx, { ...event, outboxKey: row.idempotency_key });
}
