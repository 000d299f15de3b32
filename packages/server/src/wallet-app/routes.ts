import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Address } from 'viem';
import { approveRequest, cancelRequestAsMember, openRequest, viewRequest, type RequestChangeListener } from '../a2a/approval/commands.ts';
import { describeRequest } from './request-view.ts';
import { withRequestFacts } from './request-facts.ts';
import { ResultResponses } from '../a2a/requests/schema.ts';
import { ApproveBody, MemberSummary, RequestKeyParams, RequestView } from './schema.ts';
import { authenticateRequest, summarize, type Session } from '../member-session/commands.ts';
import { described } from '../http/schema.ts';

/**
 * The wallet-app API under /v2/wallet-app: what the wallet app (and the built-in web page) uses to
 * open, approve or cancel App2App requests (sessions: sessions/routes.ts). Every route needs the
 * member's session: the cookie (writes with `X-Wallet-App: 1`) or `Authorization: Bearer
 * <session_token>`. Errors: wallet-app/family.ts.
 */
export const walletAppRoutes: FastifyPluginAsync<{ listener: RequestChangeListener }> = async (plugin, { listener }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { services } = app;

  const session = (request: FastifyRequest): Promise<Session> => authenticateRequest(services, request);

  app.get('/v2/wallet-app/me', { schema: { summary: 'The signed-in member', response: { 200: described(MemberSummary, 'The signed-in member') } } }, async (request) => summarize((await session(request)).member));

  app.get('/v2/wallet-app/a2a/requests/:request_key', { schema: { summary: 'View an App2App request', params: RequestKeyParams, response: { 200: described(RequestView, 'The request as the member confirms it') } } }, async (request) => {
    const { member } = await session(request);
    const { row, action } = await viewRequest(services, request.params.request_key);
    return withRequestFacts(services, describeRequest(row, action, member.main_address as Address), member.main_address as Address);
  });

  app.post('/v2/wallet-app/a2a/requests/:request_key/open', { schema: { summary: 'Open an App2App request (prepared to requested)', params: RequestKeyParams, response: { 200: described(RequestView, 'The request, now requested') } } }, async (request) => {
    const { member } = await session(request);
    const { row, action } = await openRequest(services, { requestKey: request.params.request_key, userId: member.id }, listener);
    return withRequestFacts(services, describeRequest(row, action, member.main_address as Address), member.main_address as Address);
  });

  app.post(
    '/v2/wallet-app/a2a/requests/:request_key/approve',
    { schema: { summary: 'Approve an App2App request with the PIN', params: RequestKeyParams, body: ApproveBody, response: ResultResponses } },
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

  app.post('/v2/wallet-app/a2a/requests/:request_key/cancel', { schema: { summary: 'Cancel an App2App request', params: RequestKeyParams, response: ResultResponses } }, async (request, reply) => {
    const { member } = await session(request);
    const answer = await cancelRequestAsMember(services, { requestKey: request.params.request_key, userId: member.id }, listener);
    return reply.status(answer.httpStatus).send(answer.body);
  });
};
