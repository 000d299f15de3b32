import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { AppError, isAppError, isRefusedRequest } from '../errors/app-error.ts';
import { clientAddressKey } from '../sign-in-guard/client-address.ts';
import { assertPartnerProgramOpen } from './program-window.ts';
import { Errors } from '../errors/codes.ts';

/**
 * What Family A answers for a failure outside the listed codes (the specification: HTTP 500 with a
 * plain-text message on these operations, the code and err pair on the escrow operations, an empty
 * body on the others), by method and route.
 */
const UNLISTED_FAILURE_TEXT: Readonly<Record<string, string>> = {
  'POST /v2/partner/auth': 'failed to sign in',
  'PUT /v2/partner/': 'failed to change password',
  'PUT /v2/partner': 'failed to change password',
  'PUT /v2/partner/pin': 'failed to change PIN',
  'POST /v2/wallet/image': 'failed to upload',
  'POST /v2/wallet/nftResource': 'failed to upload',
  'POST /v2/wallet/nftResource/secure': 'failed to upload',
};

/**
 * Family A, the partner API: what applies to every route of the context it is given (app.ts mounts
 * A1 to A20 in one). Each request first passes, in this order:
 * 1. the program window: after `partnerProgram.endsAt` every call answers 440;
 * 2. the per-address rate limit (`partnerApi.rateLimit`): 429 with Retry-After;
 * 3. on authorised routes, the access token (the `authenticatePartner` hook each resource asks for).
 * Unlisted failures answer as the specification shows them for each route.
 */
export async function applyPartnerApiConventions(app: FastifyInstance): Promise<void> {
  app.decorateRequest('partner', null);
  app.setErrorHandler((error, request, reply) => {
    // Listed codes and refused requests: the app's handler answers them with the registry's body.
    if (isAppError(error) || isRefusedRequest(error)) throw error;
    request.log.error(error);
    const route = request.routeOptions.url ?? '';
    if (route === '/v2/escrow' || route.startsWith('/v2/escrow/')) return reply.status(500).send(new AppError(Errors.InternalError).toBody());
    const text = UNLISTED_FAILURE_TEXT[`${request.method} ${route}`];
    return text ? reply.status(500).type('text/plain; charset=utf-8').send(text) : reply.status(500).send();
  });
  app.addHook('onRequest', async () => {
    assertPartnerProgramOpen(app.services.config);
  });
  const limits = app.services.config.partnerApi.rateLimit;
  // In-process counters (per service process); the wrong-password and PIN counts that guard secrets are in the store.
  await app.register(rateLimit, {
    global: false,
    max: limits.max,
    timeWindow: limits.timeWindowMs,
    keyGenerator: (request) => clientAddressKey(request.ip),
    errorResponseBuilder: () => new AppError(Errors.TooManyRequests),
  });
  app.addHook('onRequest', app.rateLimit());
}
