import Type, { type Static } from 'typebox';
import { WEBHOOK_EVENTS } from './events.ts';
import { secret } from '../lib/secret.ts';

const EventType = Type.Union(WEBHOOK_EVENTS.map((event) => Type.Literal(event)), { description: 'an event type (docs/webhooks.md)' });

/** `POST /v2/partner/webhooks` body. */
export const WebhookCreateBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'http or https URL the events are posted to' }),
    events: Type.Array(EventType, { minItems: 1, maxItems: WEBHOOK_EVENTS.length, uniqueItems: true }),
  },
  { additionalProperties: false },
);
export type WebhookCreateBody = Static<typeof WebhookCreateBody>;

export const WebhookEndpointAnswer = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  created_at: Type.Integer({ description: 'epoch milliseconds' }),
  previous_secret_expires_at: Type.Union([Type.Integer(), Type.Null()], {
    description: 'epoch milliseconds: until then messages are also signed with the secret before the last rotation; null when there is none',
  }),
});

/** The created endpoint, with its signing secret: shown this once. */
export const WebhookCreatedAnswer = Type.Object({ ...WebhookEndpointAnswer.properties, secret: secret(Type.String({ description: 'whsec_<base64>: the HMAC key of the signatures' })) });

export const WebhookListAnswer = Type.Object({ endpoints: Type.Array(WebhookEndpointAnswer) });

export const WebhookEndpointParams = Type.Object({ endpoint_id: Type.String({ maxLength: 100 }) });
export const WebhookMessageParams = Type.Object({ endpoint_id: Type.String({ maxLength: 100 }), message_id: Type.String({ maxLength: 100 }) });

/** How long the secret before a rotation stays valid unless the call says: 24 hours. */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 24 * 60 * 60;
/** The longest overlap a rotation may ask for: 7 days. */
export const MAX_SECRET_OVERLAP_SECONDS = 7 * 24 * 60 * 60;

/** `POST /v2/partner/webhooks/:endpoint_id/rotate-secret` body (optional). */
export const WebhookRotateBody = Type.Object(
  {
    overlap_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_SECRET_OVERLAP_SECONDS,
        description: `how long messages are still signed with the old secret too (default ${DEFAULT_SECRET_OVERLAP_SECONDS}, 24 h; 0 drops it at once)`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type WebhookRotateBody = Static<typeof WebhookRotateBody>;

export const WebhookSecretAnswer = Type.Object({
  secret: secret(Type.String()),
  previous_secret_expires_at: Type.Union([Type.Integer(), Type.Null()], { description: 'epoch milliseconds until which the old secret still signs too; null with overlap_seconds 0' }),
});
export const WebhookTestAnswer = Type.Object({ message_id: Type.String() });

export const WebhookDeliveryQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })) });

export const WebhookDeliveryLogAnswer = Type.Object({
  messages: Type.Array(
    Type.Object({
      id: Type.String({ description: 'the webhook-id of every attempt' }),
      type: Type.String(),
      status: Type.Union([Type.Literal('held'), Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')], {
        description: 'held: waiting for its transaction to be mined; pending: to be delivered; delivered; failed: given up',
      }),
      attempts: Type.Integer(),
      next_attempt_at: Type.Union([Type.Integer(), Type.Null()], {
        description: 'epoch milliseconds of the next attempt while pending (a message waiting behind an older one of the same card goes once that one is delivered); null otherwise',
      }),
      last_error: Type.Union([Type.String(), Type.Null()], { description: "the latest attempt's error (e.g. HTTP 500); null when it was delivered or not attempted" }),
      created_at: Type.Integer(),
      delivered_at: Type.Union([Type.Integer(), Type.Null()]),
      payload: Type.String({ description: 'the body posted, byte for byte' }),
      attempt_log: Type.Array(
        Type.Object({
          at: Type.Integer(),
          response_status: Type.Union([Type.Integer(), Type.Null()]),
          error: Type.Union([Type.String(), Type.Null()]),
          duration_ms: Type.Integer(),
        }),
      ),
    }),
  ),
});
