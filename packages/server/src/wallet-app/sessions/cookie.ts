import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.ts';
import { fromWalletApp, sessionCookie, type SignedIn } from '../../member-session/commands.ts';

/** Whether the session cookie gets `Secure`: the request came over https, or the service is published on https. */
export function secureCookies(config: Readonly<Config>, request: FastifyRequest): boolean {
  return request.protocol === 'https' || config.publicUrl.startsWith('https:');
}

/**
 * The answer of a new session. The wallet app (`X-Wallet-App: 1`) gets it as the HttpOnly cookie and
 * no token in the body, so its script never holds the token; an API client gets `session_token`.
 */
export function answerWithSession(config: Readonly<Config>, request: FastifyRequest, reply: FastifyReply, signedIn: SignedIn & { session_token: string }): SignedIn {
  if (!fromWalletApp(request)) return signedIn;
  const { session_token: token, ...rest } = signedIn;
  reply.header('set-cookie', sessionCookie({ token, maxAgeSeconds: Math.max(0, signedIn.expires_at - Math.floor(Date.now() / 1000)) }, secureCookies(config, request)));
  return rest;
}

/** Clears the session cookie (sign-out). */
export function clearSessionCookie(config: Readonly<Config>, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', sessionCookie(undefined, secureCookies(config, request)));
}
