import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { AppError } from '../../errors/app-error.ts';
import { canReadSecureFile } from '../../uploads/access.ts';
import { findUploadedFile } from '../../uploads/commands.ts';
import { StoredFileParams } from '../../uploads/schema.ts';
import { sendStoredFile, STORED_NAME } from '../../uploads/serve.ts';
import { authenticate } from '../../member-session/commands.ts';
import { cardUri } from '../card-uri.ts';
import { CardPath } from '../ids.ts';
import { catchUpWithChain } from '../index-freshness.ts';
import { chainHolderOf, findMintedCardDesign, holdsCardNaming } from '../metadata/designs.ts';
import { cardMetadataDocument } from '../metadata/document.ts';
import { cardContractById } from '../partner-signing.ts';
import { readCardStatus } from './card-status.ts';
import { Errors } from '../../errors/codes.ts';

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

  app.get('/v2/wallet-app/cards/:nft_id/:card_id', { schema: { params: CardPath } }, async (request) => {
    const { member } = await authenticate(services, request.headers.authorization);
    const { nft_id: nftId, card_id: cardId } = request.params;
    const contract = await cardContractById(services, nftId);
    const found = await findMintedCardDesign(services, contract, cardId);
    const holder = found && (await chainHolderOf(services, contract, cardId));
    if (!found || holder !== member.main_address.toLowerCase()) throw new AppError(Errors.NotFound);
    // The service's only outbound call: the card's status, fetched for its holder through the guarded client.
    const status = found.metadata.status_url ? await readCardStatus(found.metadata.status_url, services.config.cards.statusUrl) : {};
    return {
      nft_id: nftId,
      card_id: cardId,
      card_uri: cardUri(services.config.publicUrl, nftId, cardId),
      transaction_hash: found.mintTxHash,
      metadata: cardMetadataDocument(found.metadata, { nftId, cardId }),
      secure: found.secure,
      ...status,
    };
  });

  app.get('/v2/wallet-app/files/secure/:filename', { schema: { params: StoredFileParams } }, async (request, reply) => {
    const { member } = await authenticate(services, request.headers.authorization);
    const name = request.params.filename;
    const file = STORED_NAME.test(name) ? await findUploadedFile(services, name) : undefined;
    const holders = {
      holdsCardNaming: async (address: string, fileName: string) => {
        // The index finds the candidate cards: let it reach the head of the chains that hold them first.
        const chains = await services.store.db
          .selectFrom('card_secure_files as f')
          .innerJoin('card_designs as d', 'd.id', 'f.design_id')
          .select('d.chain')
          .distinct()
          .where('f.file_name', '=', fileName)
          .execute();
        await Promise.all(chains.map((row) => catchUpWithChain(services, row.chain)));
        return holdsCardNaming(services, address, fileName);
      },
    };
    if (!file || !(await canReadSecureFile(file, { kind: 'holder', address: member.main_address }, holders))) throw new AppError(Errors.NotFound);
    return sendStoredFile(services, request, reply, file, 'private, no-store');
  });
};
