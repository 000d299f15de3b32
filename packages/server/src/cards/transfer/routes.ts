import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Address } from 'viem';
import { authenticatePartner, requestPartner } from '../../partner-auth/authenticate.ts';
import { assertOwnContract } from '../partner-signing.ts';
import { burnCard, sendCard } from './commands.ts';
import { DeleteCardBody, HashAnswer, SendCardBody } from './schema.ts';
import { CardPath } from '../ids.ts';
import { described } from '../../http/schema.ts';
import { CardBusyAnswer } from '../claims/schema.ts';

/** A10 `POST /v2/wallet/nft/:nft_id/:card_id/send` and A14 `DELETE /v2/wallet/nft`. */
export const cardTransferRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const services = app.services;

  app.post(
    '/v2/wallet/nft/:nft_id/:card_id/send',
    { onRequest: authenticatePartner, schema: { summary: 'A10 Send a card to an address', params: CardPath, body: SendCardBody, response: { 200: described(HashAnswer, 'The hash of the transfer transaction'), 409: CardBusyAnswer } } },
    async (request) =>
      sendCard(services, {
        partner: requestPartner(request),
        pin: request.body.pin,
        nftId: request.params.nft_id,
        cardId: request.params.card_id,
        to: request.body.to_address as Address,
        callKey: request.idempotency,
      }),
  );

  app.delete(
    '/v2/wallet/nft',
    { onRequest: authenticatePartner, schema: { summary: 'A14 Delete a card', body: DeleteCardBody, response: { 200: described(HashAnswer, 'The hash of the burn transaction'), 409: CardBusyAnswer } } },
    async (request) => {
      const partner = requestPartner(request);
      const contract = await assertOwnContract(services, partner, request.body.contract_address);
      return burnCard(services, { partner, pin: request.body.pin, contract, cardId: request.body.card_id, callKey: request.idempotency });
    },
  );
};
