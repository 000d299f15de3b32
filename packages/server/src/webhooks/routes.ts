import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authenticatePartner, requestPartner } from '../partner-auth/authenticate.ts';
import { EmptyAnswer } from '../http/schema.ts';
import { createWebhookEndpoint, deleteWebhookEndpoint, listWebhookEndpoints, redeliverWebhook, rotateWebhookSecret, sendTestWebhook, webhookDeliveryLog, type WebhookEndpoint } from './commands.ts';
import {
  WebhookCreateBody,
  WebhookCreatedAnswer,
  WebhookDeliveryLogAnswer,
  WebhookDeliveryQuery,
  WebhookEndpointParams,
  WebhookListAnswer,
  WebhookMessageParams,
  WebhookRotateBody,
  WebhookSecretAnswer,
  DEFAULT_SECRET_OVERLAP_SECONDS,
  WebhookTestAnswer,
} from './schema.ts';
import { described } from '../http/schema.ts';

const endpointAnswer = (endpoint: WebhookEndpoint) => ({
  id: endpoint.id,
  url: endpoint.url,
  events: endpoint.events,
  created_at: endpoint.createdAt,
  previous_secret_expires_at: endpoint.previousSecretExpiresAt,
});

/** `/v2/partner/webhooks`: a partner's webhook endpoints and their delivery log (docs/webhooks.md). Inside the Family A context. */
export const webhookRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const services = app.services;
  const base = '/v2/partner/webhooks';

  app.get(base, { onRequest: authenticatePartner, schema: { summary: 'Webhook endpoints', response: { 200: described(WebhookListAnswer, "The partner's webhook endpoints") } } }, async (request) => ({
    endpoints: (await listWebhookEndpoints(services, requestPartner(request).id)).map(endpointAnswer),
  }));

  app.post(base, { onRequest: authenticatePartner, schema: { summary: 'Register a webhook endpoint', body: WebhookCreateBody, response: { 200: described(WebhookCreatedAnswer, 'The endpoint, with its signing secret (shown this once)') } } }, async (request) => {
    const created = await createWebhookEndpoint(services, requestPartner(request).id, request.body);
    return { ...endpointAnswer(created), secret: created.secret };
  });

  app.delete(`${base}/:endpoint_id`, { onRequest: authenticatePartner, schema: { summary: 'Delete a webhook endpoint', params: WebhookEndpointParams, response: { 200: described(EmptyAnswer, 'The endpoint is deleted') } } }, async (request) => {
    await deleteWebhookEndpoint(services, requestPartner(request).id, request.params.endpoint_id);
    return {};
  });

  app.post(
    `${base}/:endpoint_id/rotate-secret`,
    {
      onRequest: authenticatePartner,
      // The body is optional: a call without one (as before overlap_seconds existed) takes the default overlap.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        summary: "Rotate a webhook endpoint's signing secret",
        params: WebhookEndpointParams,
        body: WebhookRotateBody,
        response: { 200: described(WebhookSecretAnswer, 'The new signing secret (shown this once), and until when the old one signs too') },
      },
    },
    async (request) => {
      const rotated = await rotateWebhookSecret(services, requestPartner(request).id, request.params.endpoint_id, request.body.overlap_seconds ?? DEFAULT_SECRET_OVERLAP_SECONDS);
      return { secret: rotated.secret, previous_secret_expires_at: rotated.previousSecretExpiresAt };
    },
  );

  app.post(
    `${base}/:endpoint_id/test`,
    { onRequest: authenticatePartner, schema: { summary: 'Send a test event to a webhook endpoint', params: WebhookEndpointParams, response: { 200: described(WebhookTestAnswer, 'The test event is queued') } } },
    async (request) => ({ message_id: (await sendTestWebhook(services, requestPartner(request).id, request.params.endpoint_id)).messageId }),
  );

  app.get(
    `${base}/:endpoint_id/deliveries`,
    { onRequest: authenticatePartner, schema: { summary: "A webhook endpoint's delivery log", params: WebhookEndpointParams, querystring: WebhookDeliveryQuery, response: { 200: described(WebhookDeliveryLogAnswer, 'Messages and their delivery attempts, newest first') } } },
    async (request) => ({
      messages: (await webhookDeliveryLog(services, requestPartner(request).id, request.params.endpoint_id, request.query.limit ?? 50)).map((message) => ({
        id: message.id,
        type: message.type,
        status: message.status,
        attempts: message.attempts,
        next_attempt_at: message.nextAttemptAt,
        last_error: message.lastError,
        created_at: message.createdAt,
        delivered_at: message.deliveredAt,
        payload: message.payload,
        attempt_log: message.attemptLog.map((attempt) => ({ at: attempt.at, response_status: attempt.responseStatus, error: attempt.error, duration_ms: attempt.durationMs })),
      })),
    }),
  );

  app.post(
    `${base}/:endpoint_id/messages/:message_id/redeliver`,
    { onRequest: authenticatePartner, schema: { summary: 'Deliver a webhook message again', params: WebhookMessageParams, response: { 200: described(EmptyAnswer, 'The message is queued for delivery again') } } },
    async (request) => {
      await redeliverWebhook(services, requestPartner(request).id, request.params.endpoint_id, request.params.message_id);
      return {};
    },
  );
};
