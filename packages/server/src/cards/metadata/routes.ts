import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CardPath } from '../ids.ts';
import { publicCardMetadata } from './commands.ts';
import { CardMetadataDocument } from './schema.ts';
import { described } from '../../http/schema.ts';

/**
 * `GET /v2/metadata/:nft_id/:card_id`: the `card_uri` of every card, and its on-chain `tokenURI`.
 * Public (wallets and marketplaces read it) and outside Family A, so it keeps answering after the
 * partner program ends. Never holds `secure`. A burned card or one no mint of ours made is 404.
 */
export const cardMetadataRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/v2/metadata/:nft_id/:card_id', { schema: { summary: 'Card metadata (card_uri and tokenURI)', params: CardPath, response: { 200: described(CardMetadataDocument, "The card's metadata document") } } }, async (request, reply) => {
    const document = await publicCardMetadata(app.services, request.params.nft_id, request.params.card_id);
    reply.header('cache-control', 'public, max-age=60');
    return document;
  });
};
