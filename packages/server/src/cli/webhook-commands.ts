import type { ParseArgsConfig } from 'node:util';
import { AppError } from '../errors/app-error.ts';
import { Errors } from '../errors/codes.ts';
import { findPartnerByEmail } from '../partners/store.ts';
import type { Services } from '../services.ts';
import { createWebhookEndpoint, deleteWebhookEndpoint, listWebhookEndpoints, redeliverWebhook, rotateWebhookSecret, sendTestWebhook, webhookDeliveryLog } from '../webhooks/commands.ts';
import { WEBHOOK_EVENTS } from '../webhooks/events.ts';
import { DEFAULT_SECRET_OVERLAP_SECONDS, MAX_SECRET_OVERLAP_SECONDS } from '../webhooks/schema.ts';
import { required, wholeNumber } from './options.ts';
import type { CliValues, Needs } from './handler.ts';
import type { Store } from '../store/database.ts';

type CliHandler = (services: Services, values: CliValues) => Promise<Record<string, unknown>>;

async function partnerIdOf(deps: { store: Store }, values: CliValues): Promise<string> {
  const partner = await findPartnerByEmail(deps.store.db, required(values, 'email'));
  if (!partner) throw new AppError(Errors.UserNotFound);
  return partner.id;
}

/** The partner webhook commands (docs/webhooks.md): what `/v2/partner/webhooks` does, for the operator. */
export const webhookCommands: Record<string, CliHandler> = {
  // The listings need the store alone (command-table.ts): no chain is attached for them.
  'webhook list': async (deps: Needs['store'], values) => ({ endpoints: await listWebhookEndpoints(deps, await partnerIdOf(deps, values)) }),
  'webhook create': async (services, values) => {
    const events = typeof values.events === 'string' ? values.events.split(',').map((event) => event.trim()).filter(Boolean) : [...WEBHOOK_EVENTS];
    const created = await createWebhookEndpoint(services, await partnerIdOf(services, values), { url: required(values, 'url'), events });
    return { ...created, note: 'give secret to the partner; it is not shown again' };
  },
  'webhook delete': async (services, values) => {
    const endpoint = required(values, 'endpoint');
    await deleteWebhookEndpoint(services, await partnerIdOf(services, values), endpoint);
    return { endpoint, deleted: true };
  },
  'webhook rotate-secret': async (services, values) => {
    const overlap = typeof values.overlap === 'string' ? wholeNumber(values.overlap, 'overlap', MAX_SECRET_OVERLAP_SECONDS) : DEFAULT_SECRET_OVERLAP_SECONDS;
    return { ...(await rotateWebhookSecret(services, await partnerIdOf(services, values), required(values, 'endpoint'), overlap)) };
  },
  'webhook test': async (services, values) => sendTestWebhook(services, await partnerIdOf(services, values), required(values, 'endpoint')),
  'webhook deliveries': async (deps: Needs['store'], values) => {
    const limit = typeof values.limit === 'string' ? wholeNumber(values.limit, 'limit', 100) : 50;
    return { messages: await webhookDeliveryLog(deps, await partnerIdOf(deps, values), required(values, 'endpoint'), limit) };
  },
  'webhook redeliver': async (services, values) => {
    const message = required(values, 'message');
    await redeliverWebhook(services, await partnerIdOf(services, values), required(values, 'endpoint'), message);
    return { message, queued: true };
  },
};
