import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { Address } from 'viem';
import { approveRequest, cancelRequestAsMember, openRequest, viewRequest, type RequestChangeListener } from '../a2a/approval/commands.ts';
import { RequestKeyError } from '../a2a/requests/errors.ts';
import { isAppError, isRefusedRequest, refusedRequestBody } from '../errors/app-error.ts';
import { errorCodes } from '../errors/codes.ts';
import { describeRequest } from './request-view.ts';
import { authenticate, signIn, signOut, summarize, type Session } from './sessions.ts';
import { clientAddressKey } from '../sign-in-guard/client-address.ts';
import { withRetryAfter } from '../sign-in-guard/retry-after.ts';
import { cardHolderRoutes } from '../cards/holder/routes.ts';
import { claimRoutes } from '../escrow/claim-routes.ts';

export const SignInBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 254 }),
  password: Type.String({ description: 'SHA-256 hex of the password' }),
});
/** A PIN that is not SHA-256 hex is a client's mistake (400), not a guess: it is not counted. */
export const ApproveBody = Type.Object({ pin: Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'SHA-256 hex of the PIN' }) });
export const RequestKeyParams = Type.Object({ request_key: Type.String() });

/**
 * The wallet-app API under /v2/wallet-app: what the wallet app (and the built-in web page) uses to
 * sign a member in, to open, approve or cancel App2App requests, and to claim escrow links. Every route but sign-in needs
 * `Authorization: Bearer <session_token>`. Errors: `{ code, err }` (+ `message` with detail), or the
 * keyed body of B3 for a request key in error.
 */
export const walletAppRoutes: FastifyPluginAsync<{ listener: RequestChangeListener }> = async (plugin, { listener }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { services } = app;

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof RequestKeyError) return reply.status(error.httpStatus).send(error.toKeyedBody());
    if (isAppError(error)) {
      return reply.status(error.httpStatus).send({ ...error.toBody(), ...(error.detail ? { message: error.detail } : {}) });
    }
    if (isRefusedRequest(error)) return reply.status(400).send(refusedRequestBody(error));
    request.log.error(error);
    return reply.status(500).send({ code: 500, err: errorCodes[500].message });
  });

  const session = (request: FastifyRequest): Promise<Session> => authenticate(services, request.headers.authorization);

  app.post('/v2/wallet-app/sessions', { schema: { body: SignInBody } }, async (request, reply) =>
    withRetryAfter(reply, () => signIn(services, { ...request.body, address: clientAddressKey(request.ip) })),
  );

  app.delete('/v2/wallet-app/sessions/current', async (request) => {
    await signOut(services, (await session(request)).sessionId);
    return {};
  });

  app.get('/v2/wallet-app/me', async (request) => summarize((await session(request)).member));

  app.get('/v2/wallet-app/a2a/requests/:request_key', { schema: { params: RequestKeyParams } }, async (request) => {
    const { member } = await session(request);
    const { row, action } = await viewRequest(services, request.params.request_key);
    return describeRequest(row, action, member.main_address as Address);
  });

  app.post('/v2/wallet-app/a2a/requests/:request_key/open', { schema: { params: RequestKeyParams } }, async (request) => {
    const { member } = await session(request);
    const { row, action } = await openRequest(services, { requestKey: request.params.request_key, userId: member.id }, listener);
    return describeRequest(row, action, member.main_address as Address);
  });

  app.post(
    '/v2/wallet-app/a2a/requests/:request_key/approve',
    { schema: { params: RequestKeyParams, body: ApproveBody } },
    async (request, reply) => {
      const { member } = await session(request);
      const answer = await approveRequest(
        services,
        { requestKey: request.params.request_key, userId: member.id, pinHash: request.body.pin.toLowerCase() },
        listener,
      );
      return reply.status(answer.httpStatus).send(answer.body);
    },
  );

  app.post('/v2/wallet-app/a2a/requests/:request_key/cancel', { schema: { params: RequestKeyParams } }, async (request, reply) => {
    const { member } = await session(request);
    const answer = await cancelRequestAsMember(services, { requestKey: request.params.request_key, userId: member.id }, listener);
    return reply.status(answer.httpStatus).send(answer.body);
  });

  await app.register(cardHolderRoutes);
  await app.register(claimRoutes);
};
