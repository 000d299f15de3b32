import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authenticateRequest } from '../../member-session/commands.ts';
import { CardPath, NftId } from '../../cards/ids.ts';
import Type from 'typebox';
import { listMemberBappCards, listMemberCards, sendMemberCard } from './commands.ts';
import { MemberBappCards, MemberBappList, MemberCardListQuery, MemberSendCardAnswer, MemberSendCardBody } from './schema.ts';
import { described } from '../../http/schema.ts';
import { CardBusyAnswer } from '../../cards/claims/schema.ts';

/**
 * The member's cards in the wallet-app API: grouped by BApp (`GET /v2/wallet-app/cards`), more of
 * one BApp (`GET /v2/wallet-app/cards/:nft_id`), and sending one
 * (`POST /v2/wallet-app/cards/:nft_id/:card_id/send`). A card's own page is the holder's view
 * (cards/holder/routes.ts).
 */
export const memberCardRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const services = app.services;

  app.get('/v2/wallet-app/cards', { schema: { summary: "The member's cards grouped by BApp", querystring: MemberCardListQuery, response: { 200: described(MemberBappList, "The member's cards, grouped by BApp") } } }, async (request) => {
    const { member } = await authenticateRequest(services, request);
    return listMemberCards(services, member, { cursor: request.query.cursor });
  });

  app.get(
    '/v2/wallet-app/cards/:nft_id',
    { schema: { summary: "More of the member's cards of one BApp", params: Type.Object({ nft_id: NftId }), querystring: MemberCardListQuery, response: { 200: described(MemberBappCards, 'The next cards of the BApp') } } },
    async (request) => {
      const { member } = await authenticateRequest(services, request);
      return listMemberBappCards(services, member, { nftId: request.params.nft_id, cursor: request.query.cursor });
    },
  );

  app.post(
    '/v2/wallet-app/cards/:nft_id/:card_id/send',
    { schema: { summary: 'Send a card the member holds', params: CardPath, body: MemberSendCardBody, response: { 200: described(MemberSendCardAnswer, 'The card is sent; the transfer is mined'), 409: CardBusyAnswer } } },
    async (request) => {
      const { member } = await authenticateRequest(services, request);
      return sendMemberCard(services, member, {
        nftId: request.params.nft_id,
        cardId: request.params.card_id,
        pin: request.body.pin,
        toAddress: request.body.to_address,
        toPerson: request.body.to_person,
      });
    },
  );
};
