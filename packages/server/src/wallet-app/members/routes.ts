import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authenticateRequest, startSession } from '../../member-session/commands.ts';
import { EmptyAnswer, SignedIn } from '../schema.ts';
import { answerWithSession } from '../sessions/cookie.ts';
import { changePin, pinState, signUp } from './commands.ts';
import { PhoneCountries, PinChangeBody, PinState, SignUpBody } from './schema.ts';
import { phoneCountries } from '../../lib/phone.ts';
import { described } from '../../http/schema.ts';

/** Sign-up (a session comes with it), the PIN's state and PIN change. */
export const memberRoutes: FastifyPluginAsync = async (plugin) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { services } = app;

  app.post(
    '/v2/wallet-app/members',
    {
      schema: {
        summary: 'Sign up',
        description: 'Creates the member and signs them in, as sign-in does (a cookie with `X-Wallet-App: 1`, else `session_token`). Codes 410-414 and 430-435.',
        security: [],
        body: SignUpBody,
        response: { 200: described(SignedIn, 'The new member, signed in') },
      },
    },
    async (request, reply) => {
      const member = await signUp(services, request.body);
      return answerWithSession(services.config, request, reply, await startSession(services, member, request.headers['user-agent']));
    },
  );

  app.get(
    '/v2/wallet-app/phone-countries',
    { schema: { summary: 'The regions a phone number may be written in', security: [], response: { 200: described(PhoneCountries, "libphonenumber's regions with their calling codes, and `phoneDefaultCountry`") } } },
    async () => ({ default_country: services.config.phoneDefaultCountry, countries: phoneCountries() }),
  );

  app.get('/v2/wallet-app/me/pin', { schema: { summary: "The PIN's state (locked after five wrong PINs)", response: { 200: described(PinState, 'Whether the PIN is locked, and the wrong PINs so far') } } }, async (request) =>
    pinState(services, (await authenticateRequest(services, request)).member),
  );

  app.put('/v2/wallet-app/me/pin', { schema: { summary: 'Change the PIN', body: PinChangeBody, response: { 200: described(EmptyAnswer, 'The PIN is changed') } } }, async (request) => {
    await changePin(services, (await authenticateRequest(services, request)).member, request.body);
    return {};
  });
};
