import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { zeroAddress, type Address } from 'viem';
import { AppError } from '../../errors/app-error.ts';
import { authenticatePartner, requestPartner } from '../../partner-auth/authenticate.ts';
import { checkedDesign, mintAnswer, mintCards } from './commands.ts';
import { currentMintCount } from './mint-count.ts';
import { MintAnswer, MintCountAnswer, mintToAddressBody } from './schema.ts';
import { Errors } from '../../errors/codes.ts';
import { described } from '../../http/schema.ts';

/** A7 `POST /v2/wallet/mint` and A9 `GET /v2/wallet/mint/count`. */
export const mintRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const services = app.services;

  app.post(
    '/v2/wallet/mint',
    {
      onRequest: authenticatePartner,
      schema: { summary: 'A7 Mint cards to addresses', body: mintToAddressBody(services.config.cards.maxRecipients), response: { 200: described(MintAnswer, 'The mint transactions and the card id of each recipient (null where not minted)') } },
    },
    async (request) => {
      const partner = requestPartner(request);
      const { design, contract } = await checkedDesign(request.body, partner, services);
      if (request.body.to_address.some((address) => address.toLowerCase() === zeroAddress)) {
        throw new AppError(Errors.BadRequest, { detail: 'to_address holds the zero address' });
      }
      const outcome = await mintCards(services, {
        partner,
        contract,
        authorization: { pin: request.body.pin },
        design,
        recipients: request.body.to_address as Address[],
        idempotencyKey: request.idempotency?.key,
      });
      return mintAnswer(outcome);
    },
  );

  app.get('/v2/wallet/mint/count', { onRequest: authenticatePartner, schema: { summary: 'A9 Cards minted this month', response: { 200: described(MintCountAnswer, 'Cards minted in the current month') } } }, async (request) => ({
    mint_count: currentMintCount(requestPartner(request), services.config.timeZone),
  }));
};
