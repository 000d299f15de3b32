import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors/app-error.ts';
import { CardPath } from '../ids.ts';
import { cardContractById } from '../partner-signing.ts';
import { cardMetadataDocument } from './document.ts';
import { chainHolderOf, findMintedCardDesign } from './designs.ts';
import { Errors } from '../../errors/codes.ts';


/**
 * `GET /v2/metadata/:nft_id/:card_id`: the `card_uri` of every card, and its on-chain `tokenURI`.
 * Public (wallets and marketplaces read it) and outside Family A, so it keeps answering after the
 * partner program ends. Never holds `secure`. A burned card or one no mint of ours made is 404.
 */
export const cardMetadataRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/v2/metadata/:nft_id/:card_id', { schema: { params: CardPath } }, async (request, reply) => {
    const contract = await cardContractById(app.services, request.params.nft_id).catch(() => undefined);
    const found = contract && (await findMintedCardDesign(app.services, contract, request.params.card_id));
    if (!contract || !found) throw new AppError(Errors.NotFound);
    // Burned is read from the chain (ownerOf reverts): the index may not have the burn yet.
    if (!(await chainHolderOf(app.services, contract, request.params.card_id))) throw new AppError(Errors.NotFound);
    reply.header('cache-control', 'public, max-age=60');
    return cardMetadataDocument(found.metadata, { nftId: contract.nftId, cardId: request.params.card_id });
  });
};
