import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { StoredFileBody, StoredFileParams } from '../../uploads/schema.ts';
import { sendStoredFile } from '../../uploads/serve.ts';
import { authenticateRequest } from '../../member-session/commands.ts';
import { CardPath } from '../ids.ts';
import { heldCardView, heldSecureFile } from './commands.ts';
import { HeldCardView } from './schema.ts';
import { described } from '../../http/schema.ts';

/**
 * The holder's view of a card, in the wallet-app API (Bearer session):
 * - `GET /v2/wallet-app/cards/:nft_id/:card_id`: the metadata with its `secure` object, and for a
 *   card with a status_url what that URL says now (`status`) or why it could not be read (`status_error`);
 * - `GET /v2/wallet-app/files/secure/:filename`: a secure (A6) file that a held card names.
 * The chain decides who holds a card (not the index, which may lag), so a card sent away stops
 * showing its secure part at once. Anyone else gets 404: whether a card has secure data is not told.
 */
export const cardHolderRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const services = app.services;

  app.get('/v2/wallet-app/cards/:nft_id/:card_id', { schema: { summary: 'A held card with its secure part and status', params: CardPath, response: { 200: described(HeldCardView, 'The card with its secure part and status') } } }, async (request) => {
    const { member } = await authenticateRequest(services, request);
    return heldCardView(services, member, request.params.nft_id, request.params.card_id);
  });

  app.get('/v2/wallet-app/files/secure/:filename', { schema: { summary: 'A secure file of a held card', params: StoredFileParams, response: { 200: StoredFileBody } } }, async (request, reply) => {
    const { member } = await authenticateRequest(services, request);
    const file = await heldSecureFile(services, member, request.params.filename);
    return sendStoredFile(services, request, reply, file, 'private, no-store');
  });
};
