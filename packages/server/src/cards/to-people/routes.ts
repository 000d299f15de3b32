import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authenticatePartner, requestPartner } from '../../partner-auth/authenticate.ts';
import { parsePersonPair, resolvePeople } from '../../people/index.ts';
import { checkedDesign, checkMint, mintAnswer, mintCards } from '../mint/commands.ts';
import { MintAnswer } from '../mint/schema.ts';
import { operationKey, submittedOperation, unlockPartnerKey } from '../partner-signing.ts';
import { HashAnswer } from '../transfer/schema.ts';
import { CardPath } from '../ids.ts';
import { assertRecipient, checkCardSend, transferCard } from '../transfer/commands.ts';
import { settleInvites } from './commands.ts';
import { mintToPersonBody, SendToPersonBody } from './schema.ts';
import { described } from '../../http/schema.ts';

/**
 * A8 `POST /v2/wallet/mint/person` and A11 `POST /v2/wallet/nft/:nft_id/:card_id/send/person`:
 * recipients by name and phone (src/people). Order: payload (400), limits and holding (4080, 404,
 * 4201), PIN (4006, 403), then the people (reserved wallets; invite limits 4112, 4114, 4115), then
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
      const design = await checkedDesign(request.body, partner, services);
      const people = request.body.to_person.map((pair, index) => parsePersonPair(pair, index, country));
      const contract = await checkMint(services, partner, design, people.length);
      const signer = await unlockPartnerKey(services, partner, request.body.pin);
      const resolution = await resolvePeople(services, { partnerId: partner.id, people });
      const outcome = await settleInvites(resolution, design.metadata.name, partner.service_name, () =>
        mintCards(services, {
          partner,
          authorization: { signer, contract },
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
    { onRequest: authenticatePartner, schema: { summary: 'A11 Send a card to a person', params: CardPath, body: SendToPersonBody, response: { 200: described(HashAnswer, 'The hash of the transfer transaction') } } },
    async (request) => {
      const partner = requestPartner(request);
      const person = parsePersonPair(request.body.to_person, 0, country);
      const { nft_id: nftId, card_id: cardId } = request.params;
      // A retry under the key of a call that stopped after submitting answers that call's transfer.
      const outboxKey = operationKey('card-send', request.idempotency);
      const earlier = await submittedOperation(services, request.idempotency, outboxKey);
      if (earlier) return { hash: earlier.txHash };
      const contract = await checkCardSend(services, partner, nftId, cardId);
      const signer = await unlockPartnerKey(services, partner, request.body.pin);
      const resolution = await resolvePeople(services, { partnerId: partner.id, people: [person] });
      const recipient = resolution.recipients[0]!;
      assertRecipient(partner, recipient.address);
      return settleInvites(resolution, request.body.card_name, partner.service_name, () =>
        transferCard(services, { partnerId: partner.id, contract, signer, to: recipient.address, cardId, outboxKey }).then((result) => ({ result, done: [true] })),
      );
    },
  );
};
