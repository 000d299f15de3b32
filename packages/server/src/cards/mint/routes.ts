import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { zeroAddress, type Address } from 'viem';
import { AppError } from '../../errors/app-error.ts';
import { authenticatePartner, requestPartner } from '../../partner-auth/authenticate.ts';
import { assertOwnContract } from '../partner-signing.ts';
import { mintCards, type MintOutcome } from './commands.ts';
import { currentMintCount } from './mint-count.ts';
import { designOf, mintRuleViolation, type CardDesign, type MintDesignPayload } from './payload.ts';
import { MintAnswer, MintCountAnswer, mintToAddressBody } from './schema.ts';
import { Errors } from '../../errors/codes.ts';

/** A7 `POST /v2/wallet/mint` and A9 `GET /v2/wallet/mint/count`. */
export const mintRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const services = app.services;

  app.post(
    '/v2/wallet/mint',
    {
      onRequest: authenticatePartner,
      schema: { body: mintToAddressBody(services.config.cards.maxRecipients), response: { 200: MintAnswer } },
    },
    async (request) => {
      const partner = requestPartner(request);
      const design = await checkedDesign(request.body, partner, services);
      if (request.body.to_address.some((address) => address.toLowerCase() === zeroAddress)) {
        throw new AppError(Errors.BadRequest, { detail: 'to_address holds the zero address' });
      }
      const outcome = await mintCards(services, {
        partner,
        authorization: { pin: request.body.pin },
        design,
        recipients: request.body.to_address as Address[],
      });
      return mintAnswer(outcome);
    },
  );

  app.get('/v2/wallet/mint/count', { onRequest: authenticatePartner, schema: { response: { 200: MintCountAnswer } } }, async (request) => ({
    mint_count: currentMintCount(requestPartner(request), services.config.timeZone),
  }));
};

/** The design of a payload that passed its schema, after the rules a schema cannot say (400). */
export async function checkedDesign(
  payload: MintDesignPayload,
  partner: Parameters<typeof assertOwnContract>[1],
  services: Parameters<typeof assertOwnContract>[0],
): Promise<CardDesign> {
  const violation = mintRuleViolation(payload);
  if (violation) throw new AppError(Errors.BadRequest, { detail: violation });
  await assertOwnContract(services, partner, payload.contract_address);
  return designOf(payload);
}

export function mintAnswer(outcome: MintOutcome): MintAnswer {
  return {
    hash: outcome.hash,
    hashes: outcome.hashes,
    card_ids: outcome.cardIdsByRecipient,
    minted_count: outcome.mintedCount,
    fail_count: outcome.failCount,
  };
}
