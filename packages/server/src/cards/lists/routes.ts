import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authenticatePartner, requestPartner } from '../../partner-auth/authenticate.ts';
import { listPartnerBapps, listPartnerNftCards } from './commands.ts';
import { BappListAnswer, BappListQuery, NftCardListAnswer, NftCardListParams, NftCardListQuery } from './schema.ts';
import { described } from '../../http/schema.ts';

/**
 * A12 `GET /v2/wallet/bapp` and A13 `GET /v2/wallet/nft/:nft_id`: the cards the partner's own
 * address holds, grouped by BApp or for one card contract. Registered inside the Family A context
 * (program window, rate limit).
 */
export const cardListRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v2/wallet/bapp',
    { onRequest: authenticatePartner, schema: { summary: 'A12 Get card list by BApp', querystring: BappListQuery, response: { 200: described(BappListAnswer, "The partner's card contracts and cards, one page") } } },
    async (request) => listPartnerBapps(app.services, requestPartner(request), { cursor: request.query.cursor }),
  );

  app.get(
    '/v2/wallet/nft/:nft_id',
    {
      onRequest: authenticatePartner,
      schema: { summary: 'A13 Get cards of one contract', params: NftCardListParams, querystring: NftCardListQuery, response: { 200: described(NftCardListAnswer, 'The cards of the contract, one page') } },
    },
    async (request) =>
      listPartnerNftCards(app.services, requestPartner(request), {
        nftId: request.params.nft_id,
        cursor: request.query.cursor,
        isAll: request.query.isAll?.toLowerCase() === 'true',
      }),
  );
};
