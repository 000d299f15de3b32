import cors from '@fastify/cors';
import type { FastifyPluginAsync } from 'fastify';
import { isAppError, isRefusedRequest, refusedRequestBody } from '../errors/app-error.ts';
import { IndexedCardOwnershipReader } from './cards/indexed-ownership.ts';
import { ChainCardOwnershipReader, type CardOwnershipReader } from './cards/ownership.ts';
import { cardsRoute } from './cards/routes.ts';
import { linksRoutes } from './links/routes.ts';
import { prepareRoute } from './prepare/routes.ts';
import { prepareErrorBody, RequestKeyError } from './requests/errors.ts';
import { resultRoute } from './requests/routes.ts';
import type { A2aRuntime } from './runtime.ts';

export interface A2aRoutesOptions {
  runtime: A2aRuntime;
  /** Where B4 reads card ownership; the chain by default. */
  cardReader?: CardOwnershipReader;
}

/**
 * Family B under /v2/a2a: prepare, result (with long-poll), links and QR codes, and the card query.
 * CORS is open here (browser BApps call it directly) and only here. Errors: the bare `{ code, err }`,
 * with `error: { code, message, err }` added for 6408 and 6414, or the keyed body for a key in error.
 */
export const a2aRoutes: FastifyPluginAsync<A2aRoutesOptions> = async (app, options) => {
  await app.register(cors, { origin: '*', methods: ['GET', 'POST', 'OPTIONS'], maxAge: 600 });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof RequestKeyError) return reply.status(error.httpStatus).send(error.toKeyedBody());
    if (isAppError(error)) return reply.status(error.httpStatus).send(prepareErrorBody(error));
    if (isRefusedRequest(error)) return reply.status(400).send(refusedRequestBody(error));
    request.log.error(error);
    return reply.status(500).send({ code: 500, err: 'internal server error' });
  });

  options.runtime.start();
  app.addHook('onClose', async () => options.runtime.close());

  await app.register(prepareRoute);
  await app.register(resultRoute, { runtime: options.runtime });
  await app.register(linksRoutes);
  const reader =
    options.cardReader ??
    new IndexedCardOwnershipReader(app.services.cardIndex, app.services.store.db, new ChainCardOwnershipReader());
  await app.register(cardsRoute, { reader });
};
