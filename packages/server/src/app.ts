import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Services } from './services.ts';
import { isAppError, isRefusedRequest, refusedRequestBody } from './errors/app-error.ts';
import { healthRoutes } from './health/routes.ts';
import { a2aRoutes } from './a2a/routes.ts';
import { A2aRuntime } from './a2a/runtime.ts';
import { walletAppRoutes } from './wallet-app/routes.ts';
import { walletPageRoutes } from './wallet-app/page.ts';
import { partnerApiRoutes } from './partner-api/index.ts';
import { fileRoutes } from './uploads/file-routes.ts';
import { exampleRoutes } from './examples/routes.ts';
import { cardMetadataRoutes } from './cards/metadata/routes.ts';

export interface BuildAppOptions {
  services: Services;
  /** A pino logger for request logs; none by default (tests). */
  logger?: FastifyServerOptions['loggerInstance'];
}

export type App = FastifyInstance & { services: Services };

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

/** Builds the HTTP app over opened services; `listen()` is the caller's business. */
export async function buildApp(options: BuildAppOptions): Promise<App> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    // Validation errors of every route become the registry's 400 body.
    ajv: { customOptions: { allErrors: false, coerceTypes: 'array', removeAdditional: false } },
    bodyLimit: 1024 * 1024,
    trustProxy: options.services.config.trustProxy,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.decorate('services', options.services);

  app.setErrorHandler((error, request, reply) => {
    if (isAppError(error)) return reply.status(error.httpStatus).send(error.code === 400 ? refusedRequestBody(error) : error.toBody());
    if (isRefusedRequest(error)) return reply.status(400).send(refusedRequestBody(error));
    request.log.error(error);
    return reply.status(500).send({ code: 500, err: 'internal server error' });
  });
  app.setNotFoundHandler((_request, reply) => reply.status(404).send({ code: 404, err: 'not Found' }));

  await app.register(healthRoutes);
  // Family B and the wallet-app API share one runtime: approvals wake the result long-polls.
  const a2a = new A2aRuntime(options.services);
  await app.register(a2aRoutes, { prefix: '/v2/a2a', runtime: a2a });
  await app.register(walletAppRoutes, { listener: a2a });
  await app.register(walletPageRoutes);
  await app.register(partnerApiRoutes);
  await app.register(fileRoutes);
  await app.register(exampleRoutes);
  await app.register(cardMetadataRoutes);
  return app as unknown as App;
}
