import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authenticatePartner, requestPartner } from '../../partner-auth/authenticate.ts';
import { clientAddressKey } from '../../sign-in-guard/client-address.ts';
import { withRetryAfter } from '../../sign-in-guard/retry-after.ts';
import { changePartnerPassword, changePartnerPin } from './commands.ts';
import { EmptyAnswer, PasswordChangeBody, PasswordChangeFailure, PasswordChangeQuery, PinChangeBody, PinChangeFailure } from './schema.ts';
import { described } from '../../http/schema.ts';

/** A2 `PUT /v2/partner/?opt=password` (also without the trailing slash) and A3 `PUT /v2/partner/pin`. */
export const credentialRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  for (const url of ['/v2/partner/', '/v2/partner']) {
    app.put(
      url,
      {
        onRequest: authenticatePartner,
        schema: { summary: 'A2 Change the password', querystring: PasswordChangeQuery, body: PasswordChangeBody, response: { 200: described(EmptyAnswer, 'The password is changed'), 500: PasswordChangeFailure } },
      },
      async (request, reply) => {
        await withRetryAfter(reply, () =>
          changePartnerPassword(app.services, requestPartner(request), {
            oldPassword: request.body.old_password,
            newPassword: request.body.new_password,
            address: clientAddressKey(request.ip),
          }),
        );
        return {};
      },
    );
  }
  app.put(
    '/v2/partner/pin',
    { onRequest: authenticatePartner, schema: { summary: 'A3 Change the PIN', body: PinChangeBody, response: { 200: described(EmptyAnswer, 'The PIN is changed'), 500: PinChangeFailure } } },
    async (request) => {
      await changePartnerPin(app.services, requestPartner(request), { oldPin: request.body.old_pin, newPin: request.body.new_pin });
      return {};
    },
  );
};
