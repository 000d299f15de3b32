import type { FastifyPluginAsync } from 'fastify';
import type { Static } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authenticateRequest } from '../../member-session/commands.ts';
import { described } from '../../http/schema.ts';
import { quoteTransfer, sendTransfer, type TransferInput } from './commands.ts';
import { Quote, QuoteBody, SendBody, Sent } from './schema.ts';

const inputOf = (body: Static<typeof QuoteBody>): TransferInput => ({
  chain: body.chain,
  token: body.token,
  amount: body.amount,
  toAddress: body.to_address,
  toPerson: body.to_person,
});

/**
 * Coins and tokens from the wallet app: `POST /v2/wallet-app/transfers/quote` checks a send and
 * answers its fee and balances (no PIN); `POST /v2/wallet-app/transfers` sends it with the PIN.
 */
export const transferRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const services = app.services;

  app.post(
    '/v2/wallet-app/transfers/quote',
    { schema: { summary: 'Check a send of coins or tokens: the fee and the balances', body: QuoteBody, response: { 200: described(Quote, 'The send can be paid; what it costs') } } },
    async (request) => quoteTransfer(services, (await authenticateRequest(services, request)).member, inputOf(request.body)),
  );

  app.post(
    '/v2/wallet-app/transfers',
    { schema: { summary: 'Send coins or tokens with the PIN', body: SendBody, response: { 200: described(Sent, 'Sent; the transaction is mined') } } },
    async (request) => {
      const { member } = await authenticateRequest(services, request);
      return sendTransfer(services, member, { ...inputOf(request.body), pin: request.body.pin, idempotencyKey: request.body.idempotency_key });
    },
  );
};
