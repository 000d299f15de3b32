import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Store } from '../store/database.ts';
import type { WebhookMessageRow } from '../store/schema.ts';
import { PollingLoop } from '../lib/polling-loop.ts';
import { guardedPost } from '../outbound/guarded-fetch.ts';
import type { ChainRegistry } from '../chain/chains.ts';
import type { KeyVault } from '../custody/key-vault.ts';
import { signatureHeader } from './signing.ts';
import { signingSecrets } from './secrets.ts';
import { releaseHeldWebhooks } from './release.ts';
import { deleteFinishedMessagesBefore, dueMessages, findEndpointById, leaseMessage, recordAttempt } from './store.ts';

/** Messages one pass of one instance attempts at most. */
const MESSAGES_PER_PASS = 50;
/** Delivered and given-up messages stay in the delivery log this long. */
export const MESSAGE_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
const CLEANUP_EVERY_MS = 60 * 60 * 1000;
/** An answer this long is the most a delivery keeps reading. */
const MAX_ANSWER_BYTES = 16 * 1024;

/**
 * One pass of the webhook worker: every message due (store.ts, dueMessages: not waiting behind an
 * older message of its endpoint, see docs/webhooks.md "Order") is leased to this worker, signed (with the endpoint's secret, and the one before a rotation during
 * its overlap) and posted through the guarded client; a 2xx answer delivers it,
 * anything else schedules the next attempt after `webhooks.retryDelaysMs[attempts]`, and after the
 * last the message is given up. The lease (twice the attempt time and some) keeps other instances
 * off it; a worker killed mid-delivery leaves it leased, and once the lease ends it is tried again
 * with the same id and body: delivery is at least once.
 */
export async function deliverDueWebhooks(deps: { config: Readonly<Config>; store: Store; vault: Pick<KeyVault, 'openValue'>; log: Logger }, holder: string, now = Date.now): Promise<number> {
  const settings = deps.config.webhooks;
  const due = await dueMessages(deps.store.db, now(), settings.holdLaterMessagesMs, MESSAGES_PER_PASS);
  const delivered = await Promise.all(
    due.map(async (message) => {
      const at = now();
      if (!(await leaseMessage(deps.store.db, message.id, holder, at, at + 2 * settings.timeoutMs + 5_000))) return 0;
      return (await attempt(deps, holder, message, now)) ? 1 : 0;
    }),
  );
  return delivered.reduce<number>((sum, one) => sum + one, 0);
}

async function attempt(deps: { config: Readonly<Config>; store: Store; vault: Pick<KeyVault, 'openValue'>; log: Logger }, holder: string, message: WebhookMessageRow, now: () => number): Promise<boolean> {
  const settings = deps.config.webhooks;
  const startedAt = now();
  const endpoint = await findEndpointById(deps.store.db, message.endpoint_id);
  let responseStatus: number | null = null;
  let error: string | null = null;
  if (!endpoint || endpoint.deleted_at_ms !== null) {
    error = 'the endpoint was deleted';
  } else {
    const timestamp = Math.floor(startedAt / 1000);
    try {
      const secrets = await signingSecrets(deps, endpoint, startedAt);
      const answer = await guardedPost(
        endpoint.url,
        {
          body: message.payload,
          headers: {
            'webhook-id': message.id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signatureHeader(secrets, message.id, timestamp, message.payload),
            'user-agent': 'wallet-service-webhooks',
          },
        },
        { timeoutMs: settings.timeoutMs, maxBytes: MAX_ANSWER_BYTES, allowPrivateAddresses: settings.allowPrivateAddresses },
      );
      responseStatus = answer.status;
      if (answer.status < 200 || answer.status >= 300) error = `HTTP ${answer.status}`;
    } catch (failure) {
      error = (failure as Error).message;
    }
  }
  const finishedAt = now();
  const attemptsMade = Number(message.attempts) + 1;
  const delay = settings.retryDelaysMs[attemptsMade - 1];
  const outcome =
    error === null ? ({ status: 'delivered' } as const) : delay === undefined || !endpoint || endpoint.deleted_at_ms !== null ? ({ status: 'failed' } as const) : ({ status: 'pending', nextAttemptMs: finishedAt + delay } as const);
  await recordAttempt(
    deps.store.db,
    { id: randomUUID(), message_id: message.id, endpoint_id: message.endpoint_id, at_ms: startedAt, response_status: responseStatus, error: error?.slice(0, 500) ?? null, duration_ms: finishedAt - startedAt },
    holder,
    outcome,
  );
  if (outcome.status === 'failed') deps.log.warn(`webhook ${message.id} to endpoint ${message.endpoint_id} given up after ${attemptsMade} attempts: ${error}`);
  return error === null;
}

/**
 * Runs releaseHeldWebhooks and deliverDueWebhooks every `webhooks.pollIntervalMs`, where the
 * service runs, and forgets finished messages older than 30 days every hour.
 */
export function startWebhookDelivery(deps: { config: Readonly<Config>; store: Store; chains: Pick<ChainRegistry, 'get'>; vault: Pick<KeyVault, 'openValue'>; log: Logger }): PollingLoop {
  const holder = randomUUID();
  let cleanedAt = 0;
  const loop = new PollingLoop(
    async () => {
      if (Date.now() - cleanedAt > CLEANUP_EVERY_MS) {
        cleanedAt = Date.now();
        await deleteFinishedMessagesBefore(deps.store.db, cleanedAt - MESSAGE_RETENTION_MS);
      }
      await releaseHeldWebhooks(deps);
      await deliverDueWebhooks(deps, holder);
    },
    deps.config.webhooks.pollIntervalMs,
    (error) => deps.log.warn(`webhook delivery: ${error.message}`),
  );
  loop.start();
  return loop;
}
