import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authenticatePartner, requestPartner } from '../partner-auth/authenticate.ts';
import { approveEscrow, cancelEscrow, depositCards, escrowApproval, listEscrowedCards } from './commands.ts';
import { described } from '../http/schema.ts';
import { CardBusyAnswer } from '../cards/claims/schema.ts';
import {
  EscrowApprovalAnswer,
  EscrowApproveBody,
  EscrowCancelAnswer,
  EscrowCardsBody,
  EscrowContractQuery,
  EscrowDepositAnswer,
  EscrowFailure,
  EscrowListAnswer,
  TxHashAnswer,
} from './schema.ts';

/** A15 to A19, the partner's escrow: approve it, put cards in, list them, take them back. Inside the Family A context. */
export const escrowRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const services = app.services;

  app.post(
    '/v2/escrow/approve',
    { onRequest: authenticatePartner, schema: { summary: 'A15 Approve the escrow', body: EscrowApproveBody, response: { 200: described(TxHashAnswer, 'The hash of the approval transaction'), 500: EscrowFailure } } },
    async (request) => approveEscrow(services, requestPartner(request), { pin: request.body.pin, contractAddress: request.body.contract_address, callKey: request.idempotency }),
  );

  app.get(
    '/v2/escrow/approve',
    { onRequest: authenticatePartner, schema: { summary: 'A16 Whether the escrow is approved', querystring: EscrowContractQuery, response: { 200: described(EscrowApprovalAnswer, 'Whether the escrow contract may move the cards'), 500: EscrowFailure } } },
    async (request) => escrowApproval(services, requestPartner(request), request.query.contract_address),
  );

  app.post(
    '/v2/escrow',
    { onRequest: authenticatePartner, schema: { summary: 'A17 Put cards into escrow (claim links)', body: EscrowCardsBody, response: { 200: described(EscrowDepositAnswer, 'The deposit transaction and a claim link per card'), 409: CardBusyAnswer, 500: EscrowFailure } } },
    async (request) =>
      depositCards(services, requestPartner(request), { ...cardsInput(request.body), callKey: request.idempotency }),
  );

  app.get(
    '/v2/escrow',
    { onRequest: authenticatePartner, schema: { summary: 'A18 Cards in escrow', querystring: EscrowContractQuery, response: { 200: described(EscrowListAnswer, 'The cards in escrow, one page'), 500: EscrowFailure } } },
    async (request) =>
      listEscrowedCards(services, requestPartner(request), { contractAddress: request.query.contract_address, cursor: request.query.cursor }),
  );

  app.delete(
    '/v2/escrow',
    { onRequest: authenticatePartner, schema: { summary: 'A19 Take cards back from escrow', body: EscrowCardsBody, response: { 200: described(EscrowCancelAnswer, 'The cards taken back and the transaction'), 409: CardBusyAnswer, 500: EscrowFailure } } },
    async (request) =>
      cancelEscrow(services, requestPartner(request), { ...cardsInput(request.body), callKey: request.idempotency }),
  );
};

/** A17's and A19's body as their commands take it. */
function cardsInput(body: EscrowCardsBody): { pin: string; cardIds: number[]; contractAddress: string } {
  return { pin: body.pin, cardIds: body.card_ids, contractAddress: body.contract_address };
}
