import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authenticateRequest } from '../../member-session/commands.ts';
import { FaucetWaitError, homeOf, revealOtherChains, sendTestCoins } from './commands.ts';
import { FaucetLimit } from './faucet-limit.ts';
import { FaucetBody, FaucetSent, Home, RevealBody } from './schema.ts';
import { described } from '../../http/schema.ts';

/** The home screen: addresses and balances, the non-EVM addresses (once with the PIN), test coins. */
export const homeRoutes: FastifyPluginAsync = async (plugin) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { services } = app;
  const faucetLimit = new FaucetLimit(services.config.walletApp.faucetIntervalSeconds);

  app.get('/v2/wallet-app/home', { schema: { summary: "The member's addresses and balances", response: { 200: described(Home, 'Addresses on every chain and the coins on each EVM chain') } } }, async (request) =>
    homeOf(services, (await authenticateRequest(services, request)).member),
  );

  app.post(
    '/v2/wallet-app/home/other-chains',
    { schema: { summary: 'Show the bitcoin, solana, tron and xrpl addresses (PIN)', body: RevealBody, response: { 200: described(Home, 'Addresses on every chain, the other chains included') } } },
    async (request) => revealOtherChains(services, (await authenticateRequest(services, request)).member, request.body.pin),
  );

  app.post(
    '/v2/wallet-app/faucet',
    { schema: { summary: 'Test coins on an embedded chain', body: FaucetBody, response: { 200: described(FaucetSent, 'The test coins are sent and mined') } } },
    async (request, reply) => {
      const { member } = await authenticateRequest(services, request);
      try {
        return await sendTestCoins({ ...services, faucetLimit }, member, request.body.chain);
      } catch (error) {
        if (error instanceof FaucetWaitError) reply.header('retry-after', String(error.retryAfterSeconds));
        throw error;
      }
    },
  );
};
