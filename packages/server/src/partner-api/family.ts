import { asNodeOutage } from '../chain/node-errors.ts';
import type { RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { AppError, isAppError, isRefusedRequest } from '../errors/app-error.ts';
import { assertPartnerProgramOpen } from './program-window.ts';
import { Errors } from '../errors/codes.ts';
import { documentFamilyRoutes, SecuritySchemes, Tags } from '../http/route-docs.ts';
import { failureTextOf } from '../http/schema.ts';
import { partnerApiErrors } from './schema.ts';
import { applyIdempotencyKeys } from './idempotency/hook.ts';

/**
 * Family A, the partner API: what applies to every route of the context it is given (app.ts mounts
 * A1 to A20 in one). Each request first passes, in this order:
 * 1. the program window: after `partnerProgram.endsAt` every call answers 440;
 * 2. the per-address rate limit (`partnerApi.rateLimit`): 429 with Retry-After;
 * 3. on authorised routes, the access token (the `authenticatePartner` hook each resource asks for);
 * 4. on the routes that change state, its Idempotency-Key if it sends one (idempotency/hook.ts).
 * Unlisted failures answer as the specification shows them for each route: what the route's schema
 * says its 500 is (plain text on A1 to A6, the code and err pair on escrow, an empty body elsewhere).
 */
export async function applyPartnerApiConventions(app: FastifyInstance): Promise<void> {
  app.decorateRequest('partner', null);
  documentFamilyRoutes(app, { tag: Tags.partnerApi, security: [{ [SecuritySchemes.partnerAccessToken]: [] }], errors: partnerApiErrors });
  app.setErrorHandler((thrown, request, reply) => {
    const error = asNodeOutage(thrown, request.log);
    // Listed codes and refused requests: the app's handler answers them with the registry's body.
    if (isAppError(error) || isRefusedRequest(error)) throw error;
    request.log.error(error);
    const failure = (request.routeOptions.schema?.response as Record<number, unknown> | undefined)?.[500];
    const text = failureTextOf(failure);
    if (text) return reply.status(500).type('text/plain; charset=utf-8').send(text);
    if ((failure as { type?: unknown } | undefined)?.type === 'object') return reply.status(500).send(new AppError(Errors.InternalError).toBody());
    return reply.status(500).send();
  });
  app.addHook('onRequest', async () => {
    assertPartnerProgramOpen(app.services.config);
  });
  const limits = app.services.config.partnerApi.rateLimit;
  // The app's limiter (http/rate-limit/limits.ts), counted in this process: the wrong-password and PIN counts that guard secrets are in the store.
  app.addHook('onRequest', app.rateLimit({ max: limits.max, timeWindow: limits.timeWindowMs, limitName: 'partnerApi', acrossInstances: false } as RateLimitOptions));
  applyIdempotencyKeys(app);
}
