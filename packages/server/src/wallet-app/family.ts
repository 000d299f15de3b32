import { asNodeOutage } from '../chain/node-errors.ts';
import type { FastifyInstance } from 'fastify';
import { RequestKeyError } from '../a2a/requests/errors.ts';
import { isAppError, isRefusedRequest, refusedRequestBody } from '../errors/app-error.ts';
import { errorCodes } from '../errors/codes.ts';
import { documentFamilyRoutes, SecuritySchemes, Tags } from '../http/route-docs.ts';
import { walletAppErrors } from './schema.ts';

/**
 * The wallet-app API (/v2/wallet-app, and the member routes of cards and escrow claims that app.ts
 * mounts beside it): errors answer `{ code, err }` (+ `message` with detail), or the keyed body of
 * B3 for a request key in error.
 */
export function applyWalletAppConventions(app: FastifyInstance): void {
  documentFamilyRoutes(app, { tag: Tags.walletApp, security: [{ [SecuritySchemes.memberSession]: [] }], errors: walletAppErrors });
  app.setErrorHandler((thrown, request, reply) => {
    const error = asNodeOutage(thrown, request.log);
    if (error instanceof RequestKeyError) return reply.status(error.httpStatus).send(error.toKeyedBody());
    if (isAppError(error)) {
      return reply.status(error.httpStatus).send({ ...error.toBody(), ...(error.detail ? { message: error.detail } : {}) });
    }
    if (isRefusedRequest(error)) return reply.status(400).send(refusedRequestBody(error));
    request.log.error(error);
    return reply.status(500).send({ code: 500, err: errorCodes[500].message });
  });
}
