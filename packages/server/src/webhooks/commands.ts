import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { AppError } from '../errors/app-error.ts';
import { Errors } from '../errors/codes.ts';
import type { Config } from '../config/config.ts';
import type { Db, Store } from '../store/database.ts';
import type { WebhookAttemptRow, WebhookEndpointRow, WebhookMessageRow } from '../store/schema.ts';
import { isAllowedAddress } from '../outbound/guarded-fetch.ts';
import { newWebhookSecret } from './signing.ts';
import { newMessageRow, TEST_EVENT, WEBHOOK_EVENTS, webhookPayload } from './events.ts';
import type { KeyVault } from '../custody/key-vault.ts';
import { deleteEndpoint, findEndpoint, findMessage, insertEndpointWithinLimit, insertMessages, listDeliveries, listEndpoints, requeueMessage, setEndpointSecrets } from './store.ts';
import { previousSecretExpiresAt, sealedSecretColumns, signingSecrets } from './secrets.ts';

/** Endpoints a partner may register. */
const MAX_ENDPOINTS = 10;

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  createdAt: number;
  /** Until when messages are also signed with the secret before the last rotation; null when not. */
  previousSecretExpiresAt: number | null;
}

function endpointOf(row: WebhookEndpointRow, nowMs = Date.now()): WebhookEndpoint {
  return { id: row.id, url: row.url, events: JSON.parse(row.events) as string[], createdAt: Number(row.created_at_ms), previousSecretExpiresAt: previousSecretExpiresAt(row, nowMs) };
}

export async function listWebhookEndpoints(deps: { store: Store }, partnerId: string): Promise<WebhookEndpoint[]> {
  const nowMs = Date.now();
  return (await listEndpoints(deps.store.db, partnerId)).map((row) => endpointOf(row, nowMs));
}

/**
 * Registers an endpoint: an http(s) URL without credentials (a literal address must be public unless
 * `webhooks.allowPrivateAddresses`; names are checked at each delivery) and the events it takes.
 * The answer holds the signing secret, the one time it is shown.
 */
export async function createWebhookEndpoint(
  deps: { config: Readonly<Config>; store: Store; vault: Pick<KeyVault, 'sealValues'> },
  partnerId: string,
  input: { url: string; events: string[] },
): Promise<WebhookEndpoint & { secret: string }> {
  assertEndpointUrl(input.url, deps.config.webhooks.allowPrivateAddresses);
  const unknown = input.events.find((event) => !(WEBHOOK_EVENTS as readonly string[]).includes(event));
  if (unknown !== undefined) throw new AppError(Errors.BadRequest, { detail: `unknown event ${unknown}` });
  if ((await listEndpoints(deps.store.db, partnerId)).length >= MAX_ENDPOINTS) throw new AppError(Errors.BadRequest, { detail: `at most ${MAX_ENDPOINTS} webhook endpoints` });
  const id = `ep_${randomUUID().replaceAll('-', '')}`;
  const secret = newWebhookSecret();
  const row: WebhookEndpointRow = {
    id,
    partner_id: partnerId,
    url: input.url,
    events: JSON.stringify([...new Set(input.events)]),
    ...(await sealedSecretColumns(deps, id, { secret, previous: null })),
    previous_secret_until_ms: null,
    created_at_ms: Date.now(),
    deleted_at_ms: null,
  };
  if (!(await insertEndpointWithinLimit(deps.store, row, MAX_ENDPOINTS))) throw new AppError(Errors.BadRequest, { detail: `at most ${MAX_ENDPOINTS} webhook endpoints` });
  return { ...endpointOf(row), secret };
}

export async function deleteWebhookEndpoint(deps: { store: Store }, partnerId: string, endpointId: string): Promise<void> {
  await ownEndpoint(deps.store.db, partnerId, endpointId);
  if (!(await deleteEndpoint(deps.store.db, endpointId, Date.now()))) throw new AppError(Errors.NotFound, { detail: `no webhook endpoint ${endpointId}` });
}

/**
 * A new signing secret for an endpoint, shown once; messages signed from now on use it. For
 * `overlapSeconds` (0 to 7 days, 24 h by default) they are signed with the secret it replaces too
 * (two `v1,` signatures), so a receiver can switch secrets without refusing a message; a secret
 * from an earlier rotation still in its overlap stops signing now.
 */
export async function rotateWebhookSecret(
  deps: { store: Store; vault: Pick<KeyVault, 'sealValues' | 'openValue'> },
  partnerId: string,
  endpointId: string,
  overlapSeconds: number,
  nowMs = Date.now(),
): Promise<{ secret: string; previousSecretExpiresAt: number | null }> {
  const endpoint = await ownEndpoint(deps.store.db, partnerId, endpointId);
  const secret = newWebhookSecret();
  const until = overlapSeconds > 0 ? nowMs + overlapSeconds * 1000 : null;
  const [current] = await signingSecrets(deps, endpoint, nowMs);
  await setEndpointSecrets(deps.store.db, endpointId, {
    ...(await sealedSecretColumns(deps, endpointId, { secret, previous: until === null ? null : current! })),
    previous_secret_until_ms: until,
  });
  return { secret, previousSecretExpiresAt: until };
}

/** Queues a `webhook.test` message to one endpoint; its delivery shows in the log. */
export async function sendTestWebhook(deps: { store: Store }, partnerId: string, endpointId: string): Promise<{ messageId: string }> {
  await ownEndpoint(deps.store.db, partnerId, endpointId);
  const atMs = Date.now();
  const row = newMessageRow({ endpointId, partnerId, type: TEST_EVENT, payload: webhookPayload(TEST_EVENT, { endpoint_id: endpointId }, atMs), atMs });
  await insertMessages(deps.store.db, [row]);
  return { messageId: row.id };
}

/** The newest messages of an endpoint with each attempt made. */
export async function webhookDeliveryLog(deps: { store: Store }, partnerId: string, endpointId: string, limit: number) {
  // As of one moment: an endpoint deleted in between (which fails its pending messages) is a 404,
  // never a log of an endpoint that exists with messages failed by no attempt.
  const messages = await deps.store.readSnapshot(async (db) => {
    await ownEndpoint(db, partnerId, endpointId);
    return listDeliveries(db, endpointId, limit);
  });
  return messages.map((message) => ({
    ...messageOf(message),
    attemptLog: message.attemptRows.map((attempt) => ({ at: Number(attempt.at_ms), responseStatus: attempt.response_status, error: attempt.error, durationMs: attempt.duration_ms })),
  }));
}

/** Queues a message again for an attempt now, whatever became of it (the same id and body). */
export async function redeliverWebhook(deps: { store: Store }, partnerId: string, endpointId: string, messageId: string): Promise<void> {
  await ownEndpoint(deps.store.db, partnerId, endpointId);
  const message = await findMessage(deps.store.db, endpointId, messageId);
  if (!message) throw new AppError(Errors.NotFound, { detail: `no message ${messageId} for this endpoint` });
  await requeueMessage(deps.store.db, messageId, Date.now());
}

/** A message of the log: `nextAttemptAt` is set while it is pending (it may still wait behind an older message then), `lastError` is its latest attempt's. */
function messageOf(row: WebhookMessageRow & { attemptRows: WebhookAttemptRow[] }) {
  const last = row.attemptRows.at(-1);
  return {
    id: row.id,
    type: row.event_type,
    status: row.status,
    attempts: Number(row.attempts),
    nextAttemptAt: row.status === 'pending' ? Number(row.next_attempt_ms) : null,
    lastError: last?.error ?? null,
    createdAt: Number(row.created_at_ms),
    deliveredAt: row.delivered_at_ms === null ? null : Number(row.delivered_at_ms),
    payload: row.payload,
  };
}

async function ownEndpoint(db: Db, partnerId: string, endpointId: string): Promise<WebhookEndpointRow> {
  const endpoint = await findEndpoint(db, partnerId, endpointId);
  if (!endpoint) throw new AppError(Errors.NotFound, { detail: `no webhook endpoint ${endpointId}` });
  return endpoint;
}

function assertEndpointUrl(url: string, allowPrivateAddresses: boolean): void {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new AppError(Errors.BadRequest, { detail: 'url is not a valid URL' });
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new AppError(Errors.BadRequest, { detail: 'url must be http or https' });
  if (target.username || target.password) throw new AppError(Errors.BadRequest, { detail: 'url must not hold credentials' });
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host) !== 0;
  if ((literal && !isAllowedAddress(host, allowPrivateAddresses)) || (!allowPrivateAddresses && !literal && /^localhost$|\.localhost$/i.test(host))) {
    throw new AppError(Errors.BadRequest, { detail: 'url must be on a public address' });
  }
}
