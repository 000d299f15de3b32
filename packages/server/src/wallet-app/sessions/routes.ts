import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  authenticateRequest,
  listSessions,
  signIn,
  signOut,
  signOutEverywhere,
  signOutSession,
  summarize,
} from '../../member-session/commands.ts';
import { AppError } from '../../errors/app-error.ts';
import { answerWithSession, clearSessionCookie } from './cookie.ts';
import { clientAddressKey } from '../../sign-in-guard/client-address.ts';
import { withRetryAfter } from '../../sign-in-guard/retry-after.ts';
import { EmptyAnswer, SignedIn, SignInBody } from '../schema.ts';
import { CurrentSession, SessionIdParams, SessionList, SignedOutEverywhere } from './schema.ts';
import { described } from '../../http/schema.ts';

/**
 * Wallet-app sessions: sign-in (a cookie for the wallet app, a bearer token for API clients), the
 * session list, and sign-out of this session, of another, or everywhere.
 */
export const sessionRoutes: FastifyPluginAsync = async (plugin) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { services } = app;
  const clearCookie = clearSessionCookie.bind(undefined, services.config);

  app.post(
    '/v2/wallet-app/sessions',
    {
      schema: {
        summary: 'Sign a member in',
        description:
          'With `X-Wallet-App: 1` (the wallet app) the session goes into an HttpOnly, SameSite=Lax cookie and the answer carries no token; without it, the answer carries `session_token` for `Authorization: Bearer`.',
        security: [],
        body: SignInBody,
        response: { 200: described(SignedIn, 'The member, signed in (the session in a cookie, or its token for API clients)') },
      },
    },
    async (request, reply) => {
      const signedIn = await withRetryAfter(reply, () =>
        signIn(services, { ...request.body, address: clientAddressKey(request.ip), userAgent: request.headers['user-agent'] }),
      );
      return answerWithSession(services.config, request, reply, signedIn);
    },
  );

  // The app's first question: answered 200 signed out too, so a signed-out visit logs no failed load.
  app.get(
    '/v2/wallet-app/sessions/current',
    { schema: { summary: 'Who is signed in, if anyone', security: [], response: { 200: described(CurrentSession, 'The signed-in member, or null') } } },
    async (request) => {
      try {
        return { member: summarize((await authenticateRequest(services, request)).member) };
      } catch (error) {
        if (error instanceof AppError && error.httpStatus === 401) return { member: null };
        throw error;
      }
    },
  );

  app.get('/v2/wallet-app/sessions', { schema: { summary: "The member's live sessions", response: { 200: described(SessionList, "The member's live sessions") } } }, async (request) => ({
    sessions: await listSessions(services, await authenticateRequest(services, request)),
  }));

  app.delete('/v2/wallet-app/sessions/current', { schema: { summary: 'Sign out', response: { 200: described(EmptyAnswer, 'The session is ended') } } }, async (request, reply) => {
    await signOut(services, (await authenticateRequest(services, request)).sessionId);
    clearCookie(request, reply);
    return {};
  });

  app.delete('/v2/wallet-app/sessions', { schema: { summary: 'Sign out everywhere', response: { 200: described(SignedOutEverywhere, 'Every session of the member is ended') } } }, async (request, reply) => {
    const signedOut = await signOutEverywhere(services, await authenticateRequest(services, request));
    clearCookie(request, reply);
    return { signed_out: signedOut };
  });

  app.delete(
    '/v2/wallet-app/sessions/:session_id',
    { schema: { summary: 'Sign out another session of the member', params: SessionIdParams, response: { 200: described(EmptyAnswer, 'That session is ended') } } },
    async (request, reply) => {
      const session = await authenticateRequest(services, request);
      await signOutSession(services, session, request.params.session_id);
      if (request.params.session_id === session.sessionId) clearCookie(request, reply);
      return {};
    },
  );

};
