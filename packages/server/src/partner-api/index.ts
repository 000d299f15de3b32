import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsync } from 'fastify';
import { cardListRoutes } from '../cards/lists/routes.ts';
import { AppError } from '../errors/app-error.ts';
import { uploadRoutes } from '../uploads/routes.ts';
import { inviteRoutes } from '../people/routes.ts';
import { partnerCardRoutes } from '../cards/routes.ts';
import { clientAddressKey } from '../sign-in-guard/client-address.ts';
import { credentialRoutes } from './credentials/routes.ts';
import { assertPartnerProgramOpen } from './program-window.ts';
import { signInRoutes } from './sign-in/routes.ts';

/**
 * Family A, the partner API. Every route registered in here (A1 to A6 so far; later Family A
 * modules belong here too) first passes, in this order:
 * 1. the program window: after `partnerProgram.endsAt` every call answers 440;
 * 2. the per-address rate limit (`partnerApi.rateLimit`): 429 with Retry-After;
 * 3. on authorised routes, the access token (`authenticatePartner` onRequest hook).
 */
export const partnerApiRoutes: FastifyPluginAsync = async (app) => {
  app.decorateRequest('partner', null);
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
    errorResponseBuilder: () => new AppError(429),
  });
  app.addHook('onRequest', app.rateLimit());

  await app.register(signInRoutes);
  await app.register(credentialRoutes);
  await app.register(uploadRoutes);
  await app.register(inviteRoutes);
  await app.register(partnerCardRoutes);
  await app.register(cardListRoutes);
};
