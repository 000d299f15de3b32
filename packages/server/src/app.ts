import { randomUUID } from 'node:crypto';
import { createServer, type ServerOptions } from 'node:http';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Services } from './services.ts';
import { AppError, isAppError, isRefusedRequest, refusedRequestBody } from './errors/app-error.ts';
import { asNodeOutage } from './chain/node-errors.ts';
import { healthRoutes } from './health/routes.ts';
import { applyA2aFamily } from './a2a/family.ts';
import { A2aRuntime } from './a2a/runtime.ts';
import type { HeldResults } from './a2a/requests/held-results.ts';
import { a2aPrepareRoutes } from './a2a/prepare/routes.ts';
import { a2aResultRoutes, answerHeldPoll } from './a2a/requests/routes.ts';
import { a2aLinksRoutes } from './a2a/links/routes.ts';
import { a2aCardsRoutes } from './a2a/cards/routes.ts';
import { a2aChainRoutes } from './a2a/chains/routes.ts';
import { walletAppRoutes } from './wallet-app/routes.ts';
import { sessionRoutes } from './wallet-app/sessions/routes.ts';
import { memberRoutes } from './wallet-app/members/routes.ts';
import { homeRoutes } from './wallet-app/home/routes.ts';
import { applyWalletAppConventions } from './wallet-app/family.ts';
import { sendAppNotFoundPage, walletAppStaticRoutes } from './wallet-app/static-app.ts';
import { memberCardRoutes } from './wallet-app/cards/routes.ts';
import { activityRoutes } from './wallet-app/activity/routes.ts';
import { transferRoutes } from './wallet-app/transfers/routes.ts';
import { applyPartnerApiConventions } from './partner-api/family.ts';
import { signInRoutes } from './partner-api/sign-in/routes.ts';
import { credentialRoutes } from './partner-api/credentials/routes.ts';
import { uploadRoutes } from './uploads/routes.ts';
import { fileRoutes } from './uploads/files/routes.ts';
import { inviteRoutes } from './people/routes.ts';
import { mintRoutes } from './cards/mint/routes.ts';
import { cardTransferRoutes } from './cards/transfer/routes.ts';
import { cardsToPeopleRoutes } from './cards/to-people/routes.ts';
import { receiptRoutes } from './cards/receipts/routes.ts';
import { cardListRoutes } from './cards/lists/routes.ts';
import { cardHolderRoutes } from './cards/holder/routes.ts';
import { cardMetadataRoutes } from './cards/metadata/routes.ts';
import { escrowRoutes } from './escrow/routes.ts';
import { claimRoutes } from './escrow/claims/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { exampleRoutes } from './examples/routes.ts';
import { answerClientError } from './http/client-errors.ts';
import { applyBodyLimits, uploadBodyLimit } from './http/body-limits.ts';
import { registerRateLimits } from './http/rate-limit/limits.ts';
import { discardUnreadBody, isBodyRead, lingerOnClose, REFUSED_BODY_DISCARD } from './http/unread-body.ts';
import { Errors } from './errors/codes.ts';
import { registerOpenApiDocument } from './openapi/document.ts';
import { documentFamilyRoutes, Tags } from './http/route-docs.ts';
import { ErrorBody } from './http/schema.ts';
import { openApiRoutes } from './openapi/routes.ts';
import { metricsRoutes } from './metrics/routes.ts';
import { requestContext } from './logging/logger.ts';
import { addSecretFieldsOfRoute } from './logging/redaction.ts';
import { serializerFactory, validatorCompiler } from './http/schema-compilers.ts';

export interface BuildAppOptions {
  services: Services;
  /** A pino logger for request logs; none by default (tests). */
  logger?: FastifyServerOptions['loggerInstance'];
  /** Compile every route's validators and serializers while the app is built, not at first use (http/schema-compilers.ts). */
  compileSchemasAtStart?: boolean;
}

/** What the router's own refusals say (Fastify's error codes). */
const ROUTER_REFUSALS: Record<string, string> = {
  FST_ERR_BAD_URL: 'the path is not validly percent-encoded',
  FST_ERR_MAX_PARAM_LENGTH: 'a path parameter is longer than 100 characters',
};

export type App = FastifyInstance & { services: Services };

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
    /** The B3 answers this app holds in memory (a2a/requests/held-results.ts). */
    heldResults: HeldResults;
  }
}

/** Builds the HTTP app over opened services; `listen()` is the caller's business. */
export async function buildApp(options: BuildAppOptions): Promise<App> {
  // Family B and the wallet-app API share one runtime: approvals wake the result long-polls.
  const a2a = new A2aRuntime({ ...options.services, a2aRecorder: options.services.metrics });
  const debugLogging = () => options.logger?.level === 'debug' || options.logger?.level === 'trace';
  const app = Fastify({
    // Fastify's own server (lib/server.js), with B3 polls of held answers answered before Fastify
    // (answerHeldPoll); not while debug logging is on, so that every request keeps its log line.
    serverFactory: (handler, fastifyOptions) => {
      const settings = fastifyOptions as { http?: ServerOptions; keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number; maxRequestsPerSocket?: number };
      const server = createServer(settings.http ?? {}, (request, response) => {
        if (debugLogging()) return handler(request, response);
        answerHeldPoll(a2a.heldResults, options.services.metrics, request, response, () => handler(request, response));
      });
      if (settings.keepAliveTimeout !== undefined) server.keepAliveTimeout = settings.keepAliveTimeout;
      if (settings.requestTimeout !== undefined) server.requestTimeout = settings.requestTimeout;
      if (settings.connectionTimeout !== undefined) server.setTimeout(settings.connectionTimeout);
      if (settings.maxRequestsPerSocket) server.maxRequestsPerSocket = settings.maxRequestsPerSocket;
      return server;
    },
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    // Fastify's two info lines per request would fill a quiet log: one debug line is written below.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
    // The request id comes from requestContext (logging/logger.ts), on request.log's lines and on
    // those of the commands and the outbox alike; bound here too, it would be written twice.
    childLoggerFactory: (logger, bindings, childOptions) => {
      const { reqId: _reqId, ...rest } = bindings as Record<string, unknown>;
      return logger.child(rest, childOptions);
    },
    // Bodies are bounded by http/body-limits.ts (413 in each family's body); this is Fastify's own backstop.
    bodyLimit: options.services.config.http.maxJsonBodyBytes,
    trustProxy: options.services.config.trustProxy,
    // Refused by the router before any route or error handler runs: answered with the registry's
    // 400 body too, saying what was wrong without echoing the (possibly huge) path.
    frameworkErrors: (error, _request, reply: FastifyReply) => {
      const detail = ROUTER_REFUSALS[error.code] ?? 'the request could not be routed';
      return reply.status(400).send(refusedRequestBody(new AppError(Errors.BadRequest, { detail })));
    },
    // Refused by Node's HTTP parser, before any of the above: the same 400 body.
    clientErrorHandler: answerClientError,
    schemaController: { compilersFactory: { buildSerializer: serializerFactory({ atStart: options.compileSchemasAtStart ?? false }) } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.decorate('services', options.services);
  app.decorate('heldResults', a2a.heldResults);
  const { http: requestLimits, uploads } = options.services.config;
  applyBodyLimits(app, { bodyBytes: requestLimits.maxJsonBodyBytes, uploadBodyBytes: uploadBodyLimit(uploads.maxImageBytes), jsonDepth: requestLimits.maxJsonDepth });
  // Before any route: each unauthenticated route gets its per-address limit as it is declared.
  await registerRateLimits(app, { config: options.services.config, db: options.services.store.db, onExceeded: () => options.services.metrics.rateLimitRefused() });
  // The log's redaction learns each route's fields marked secret (lib/secret.ts) as it is declared.
  app.addHook('onRoute', addSecretFieldsOfRoute);
  app.setValidatorCompiler(validatorCompiler({ atStart: options.compileSchemasAtStart ?? false }));

  app.setErrorHandler((thrown, request, reply) => {
    const error = asNodeOutage(thrown, request.log);
    if (isAppError(error)) return reply.status(error.httpStatus).send(error.code === 400 ? refusedRequestBody(error) : error.toBody());
    if (isRefusedRequest(error)) return reply.status(400).send(refusedRequestBody(error));
    request.log.error(error);
    return reply.status(500).send({ code: 500, err: 'internal server error' });
  });
  // At trace level what arrived is logged before it is validated, so that refused requests are too;
  // secrets redacted (logging/redaction.ts); uploads are not logged.
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.log.level === 'trace' && !String(request.headers['content-type'] ?? '').startsWith('multipart/')) {
      request.log.trace({ headers: request.headers, params: request.params, query: request.query, body: request.body }, 'request received');
    }
    done();
  });
  // Ajv turns a string such as "1e309" or "Infinity" into an infinite number when it coerces a path
  // or query parameter, and then skips its range checks (they only look at finite numbers): such a
  // value passes `integer` with bounds, and PostgreSQL refuses it as a query parameter. Refused
  // here, after validation and before any handler. (1e309 in a JSON body is already a number, which
  // Ajv's type check refuses when it is not finite; free-form fields are checked by their commands,
  // with their own codes.)
  // Both hooks run on every request, so they take a callback rather than return a promise: a
  // request they have nothing to do for costs no promise and no extra turn of the event loop.
  app.addHook('preHandler', (request, _reply, done) => {
    const infinite = infiniteParameter({ params: request.params, querystring: request.query });
    if (infinite) return done(new AppError(Errors.BadRequest, { detail: `${infinite} must be a finite number` }));
    // PostgreSQL cannot store a NUL character in text; refused on every store, so both answer alike.
    const nul = nulCharacterAt({ params: request.params, querystring: request.query, body: request.body });
    if (nul) return done(new AppError(Errors.BadRequest, { detail: `${nul} must not contain a NUL character` }));
    done();
  });
  // A refusal decided before the body all arrived waits for the rest (read and dropped, up to a
  // bound) so that the client, still sending, can read it: see http/unread-body.ts.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode < 400 || isBodyRead(request.raw)) return done(null, payload);
    discardUnreadBody(request.raw, REFUSED_BODY_DISCARD).then(
      (discarded) => {
        if (!discarded) {
          reply.header('connection', 'close');
          lingerOnClose(request.raw.socket);
        }
        done(null, payload);
      },
      (error: Error) => done(error),
    );
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    requestContext.run({ reqId: request.id }, done);
  });
  // Route patterns, not raw URLs: the series stay few whatever clients send, and a path never
  // puts what it carries into the log.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    options.services.metrics.requestAnswered(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    request.log.debug({ method: request.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    done();
  });
  app.setNotFoundHandler(async (request, reply) => {
    if (await sendAppNotFoundPage(request, reply)) return reply;
    return reply.status(404).send({ code: 404, err: 'not Found' });
  });

  // First: it documents every route registered after it.
  await registerOpenApiDocument(app);
  await app.register(openApiRoutes);
  await app.register(healthRoutes);
  const { metrics: metricsSettings } = options.services.config;
  if (metricsSettings.port === null) await app.register(metricsRoutes, { metrics: options.services.metrics, token: metricsSettings.token });
  await app.register(
    async (family) => {
      await applyA2aFamily(family, a2a);
      await family.register(a2aPrepareRoutes, { listener: a2a });
      await family.register(a2aResultRoutes, { watcher: a2a.watcher, held: a2a.heldResults });
      await family.register(a2aLinksRoutes);
      await family.register(a2aCardsRoutes);
      await family.register(a2aChainRoutes);
    },
    { prefix: '/v2/a2a' },
  );
  // The wallet-app API and the member routes beside it (card status, escrow claims).
  await app.register(async (walletApp) => {
    applyWalletAppConventions(walletApp);
    await walletApp.register(sessionRoutes);
    await walletApp.register(memberRoutes);
    await walletApp.register(homeRoutes);
    await walletApp.register(walletAppRoutes, { listener: a2a });
    await walletApp.register(cardHolderRoutes);
    await walletApp.register(memberCardRoutes);
    await walletApp.register(activityRoutes);
    await walletApp.register(transferRoutes);
    await walletApp.register(claimRoutes);
  });
  await app.register(walletAppStaticRoutes);
  // Family A, the partner API (A1 to A20).
  await app.register(async (partnerApi) => {
    await applyPartnerApiConventions(partnerApi);
    await partnerApi.register(signInRoutes);
    await partnerApi.register(credentialRoutes);
    await partnerApi.register(uploadRoutes);
    await partnerApi.register(inviteRoutes);
    await partnerApi.register(mintRoutes);
    await partnerApi.register(cardTransferRoutes);
    await partnerApi.register(cardsToPeopleRoutes);
    await partnerApi.register(receiptRoutes);
    await partnerApi.register(cardListRoutes);
    await partnerApi.register(escrowRoutes);
    await partnerApi.register(webhookRoutes);
  });
  // Public and outside Family A: they keep answering after the partner program ends.
  await app.register(async (publicRoutes) => {
    documentFamilyRoutes(publicRoutes, { tag: Tags.cardsAndFiles, errors: { 400: ErrorBody, 404: ErrorBody, 500: ErrorBody } });
    await publicRoutes.register(fileRoutes);
    await publicRoutes.register(cardMetadataRoutes);
  });
  await app.register(exampleRoutes);
  return app as unknown as App;
}

const isInfinite = (value: unknown) => typeof value === 'number' && !Number.isFinite(value);

/** The name ("params/nft_id") of the first path or query parameter that Ajv made an infinite number, if any. */
function infiniteParameter(parts: Record<string, unknown>): string | undefined {
  for (const [part, values] of Object.entries(parts)) {
    // Both are flat: the router's params, and the query as parsed (a value or an array of them).
    for (const [name, value] of Object.entries(values ?? {})) {
      if (Array.isArray(value) ? value.some(isInfinite) : isInfinite(value)) return `${part}/${name}`;
    }
  }
  return undefined;
}

/**
 * Where ("body/name", "querystring/cursor") the first string or key holding a NUL character is, if
 * any. Walked without recursion: a body may nest deeply where its schema allows any value.
 */
function nulCharacterAt(parts: Record<string, unknown>): string | undefined {
  const pending: Array<[string, unknown]> = Object.entries(parts);
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [where, value] = next;
    if (typeof value === 'string') {
      if (value.includes('\0')) return where;
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        if (key.includes('\0')) return where;
        pending.push([`${where}/${key}`, inner]);
      }
    }
  }
  return undefined;
}
