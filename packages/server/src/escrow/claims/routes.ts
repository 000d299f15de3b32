import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authenticateRequest } from '../../member-session/commands.ts';
import { claimCard, viewClaim } from './commands.ts';
import { ClaimedCard, ClaimParams, ClaimSecretBody, ClaimView } from '../schema.ts';
import { described } from '../../http/schema.ts';
import { CardBusyAnswer } from '../../cards/claims/schema.ts';

/**
 * The claim link's side of escrow, in the wallet-app API (Bearer session). The secret travels in
 * the body, never in a path or query, so it stays out of request logs:
 * - `POST /v2/wallet-app/claims/:claim_id/view`: the card behind the link and where it stands;
 * - `POST /v2/wallet-app/claims/:claim_id/claim`: claims it to the member's address.
 */
export const claimRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const services = app.services;

  app.post('/v2/wallet-app/claims/:claim_id/view', { schema: { summary: 'The card behind a claim link', params: ClaimParams, body: ClaimSecretBody, response: { 200: described(ClaimView, 'The card the link gives and whether it is still claimable') } } }, async (request) => {
    await authenticateRequest(services, request);
    return viewClaim(services, { claimId: request.params.claim_id, secret: request.body.secret });
  });

  app.post('/v2/wallet-app/claims/:claim_id/claim', { schema: { summary: 'Claim a card through its link', params: ClaimParams, body: ClaimSecretBody, response: { 200: described(ClaimedCard, 'The claimed card and the transfer transaction'), 409: CardBusyAnswer } } }, async (request) => {
    const { member } = await authenticateRequest(services, request);
    return claimCard(services, member, { claimId: request.params.claim_id, secret: request.body.secret });
  });
};
