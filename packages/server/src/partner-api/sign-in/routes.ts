import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { clientAddressKey } from '../../sign-in-guard/client-address.ts';
import { signIn } from './commands.ts';
import { withRetryAfter } from '../../sign-in-guard/retry-after.ts';
import { PartnerAccount, SignInBody, SignInFailure } from './schema.ts';
import { described } from '../../http/schema.ts';

/** A1 `POST /v2/partner/auth`: the one Family A call without a token. */
export const signInRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/v2/partner/auth',
    { schema: { summary: 'A1 Sign in', security: [], body: SignInBody, response: { 200: described(PartnerAccount, 'The partner account with its access token (valid 24 hours)'), 500: SignInFailure } } },
    async (request, reply) =>
      withRetryAfter(reply, () =>
        signIn(app.services, { email: request.body.email, password: request.body.password, address: clientAddressKey(request.ip) }),
      ),
  );
};
