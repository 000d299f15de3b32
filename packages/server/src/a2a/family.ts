import { asNodeOutage } from '../chain/node-errors.ts';
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { isAppError, isRefusedRequest, refusedRequestBody, type AppError } from '../errors/app-error.ts';
import { errorCodes, Errors } from '../errors/codes.ts';
import { RequestKeyError } from './requests/errors.ts';
import type { A2aRuntime } from './runtime.ts';
import { documentFamilyRoutes, Tags } from '../http/route-docs.ts';
import { a2aErrors } from './schema.ts';
import { A2A_CORS_ORIGIN } from './requests/routes.ts';

/**
 * The conventions of family B (under /v2/a2a: prepare, result with long-poll, links and QR codes,
 * and the card query), applied to the context that holds its routes. A plain function rather than
 * a plugin, so that it changes that context itself: app.ts calls it, then registers each resource's
 * routes in the same context.
 *
 * CORS is open here (browser BApps call it directly) and only here. Errors: the bare `{ code, err }`,
 * with `error: { code, message, err }` added for B1's refusals (prepareErrorBody), or the keyed body
 * for a key in error.
 * The runtime (long-poll watcher, fee settlement) starts with the context and stops when it closes.
 */
export async function applyA2aFamily(app: FastifyInstance, runtime: A2aRuntime): Promise<void> {
  documentFamilyRoutes(app, { tag: Tags.a2a, errors: a2aErrors });
  await app.register(cors, { origin: A2A_CORS_ORIGIN, methods: ['GET', 'POST', 'OPTIONS'], maxAge: 600 });

  app.setErrorHandler((thrown, request, reply) => {
    const error = asNodeOutage(thrown, request.log);
    if (error instanceof RequestKeyError) return reply.status(error.httpStatus).send(error.toKeyedBody());
    if (isAppError(error)) return reply.status(error.httpStatus).send(prepareErrorBody(error));
    if (isRefusedRequest(error)) return reply.status(400).send(refusedRequestBody(error));
    request.log.error(error);
    return reply.status(500).send({ code: 500, err: 'internal server error' });
  });

  runtime.start();
  // preClose runs before the server waits for requests under way: long-polls answer at once.
  app.addHook('preClose', async () => runtime.watcher.close());
  app.addHook('onClose', async () => runtime.close());
}

/**
 * The prepare error body: `{ code, err }` (with `message` for a 400), plus `error: { code, message, err }`
 * for a refusal about a field of B1's body, whose message names the field ("body/transaction/to: ..."),
 * and for 6408 and 6414 (the argument and mismatch, or the revert reason verbatim). Other Family B
 * errors (B4's) stay the bare pair.
 */
export function prepareErrorBody(error: AppError): Record<string, unknown> {
  if (error.code === Errors.BadRequest) return refusedRequestBody(error);
  const body: Record<string, unknown> = error.toBody();
  const registry = errorCodes[error.code].message;
  if (error.field) {
    const message = error.detail?.startsWith(error.field) ? error.detail : `${error.field}: ${error.detail ?? registry}`;
    body.error = { code: error.code, message, err: registry };
  } else if (error.code === Errors.InvalidParams || error.code === Errors.TransactionReverted) {
    body.error = { code: error.code, message: error.detail ?? registry, err: registry };
  }
  return body;
}
