import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authenticatePartner, requestPartner } from '../../partner-auth/authenticate.ts';
import { parsePersonPair, resolvePeople } from '../../people/index.ts';
import { checkedDesign, checkMint, mintAnswer, mintCards } from '../mint/commands.ts';
import { MintAnswer } from '../mint/schema.ts';
import { unlockPartnerKey } from '../partner-signing.ts';
import { HashAnswer } from '../transfer/schema.ts';
import { CardPath } from '../ids.ts';
import { sendCardToPerson, settleInvites } from './commands.ts';
import { mintToPersonBody, SendToPersonBody } from './schema.ts';
import { described } from '../../http/schema.ts';
import { CardBusyAnswer } from '../claims/schema.ts';

/**
 * A8 `POST /v2/wallet/mint/person` and A11 `POST /v2/wallet/nft/:nft_id/:card_id/send/person`:
 * recipients by name and phone (src/people). Order: payload (400), limits and holding (4080, 404,
 * 4209, 4201), PIN (4006, 403), then the people (reserved wallets; invite limits 4112, 4114, 4115), then
 * the transactions. Invites go out only for people whose card was minted or sent; the quota of the
 * others is given back.
 */
export const cardsToPeopleRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const services = app.services;
  const country = services.config.phoneDefaultCountry;

  app.post(
    '/v2/wallet/mint/person',
    {
      onRequest: authenticatePartner,
      schema: { summary: 'A8 Mint cards to people by name and phone', body: mintToPersonBody(services.config.cards.maxRecipients), response: { 200: described(MintAnswer, 'The mint transactions and the card id of each person (null where not minted)') } },
    },
    async (request) => {
      const partner = requestPartner(request);
      const { design, contract } = await checkedDesign(request.body, partner, services);
      const people = request.body.to_person.map((pair, index) => parsePersonPair(pair, index, country));
      await checkMint(services, partner, design, people.length);
      const signer = await unlockPartnerKey(services, partner, request.body.pin);
      const resolution = await resolvePeople(services, { partnerId: partner.id, people });
      const outcome = await settleInvites(resolution, design.metadata.name, partner.service_name, () =>
        mintCards(services, {
          partner,
          contract,
          authorization: { signer },
          design,
          recipients: resolution.recipients.map((recipient) => recipient.address),
          idempotencyKey: request.idempotency?.key,
        }).then((result) => ({ result, done: result.cardIdsByRecipient.map((id) => id !== null) })),
      );
      return mintAnswer(outcome);
    },
  );

  app.post(
    '/v2/wallet/nft/:nft_id/:card_id/send/person',
    { onRequest: authenticatePartner, schema: { summary: 'A11 Send a card to a person', params: CardPath, body: SendToPersonBody, response: { 200: described(HashAnswer, 'The hash of the transfer transaction'), 409: CardBusyAnswer } } },
    async (request) =>
      sendCardToPerson(services, {
        partner: requestPartner(request),
        pin: request.body.pin,
        nftId: request.params.nft_id,
        cardId: request.params.card_id,
        person: parsePersonPair(request.body.to_person, 0, country),
        cardName: request.body.card_name,
        callKey: request.idempotency,
      }),
  );
};
