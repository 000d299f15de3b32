import type { Logger } from 'pino';
import { AppError } from '../../errors/app-error.ts';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/database.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { CardIndex } from '../../card-index/index.ts';
import type { UploadedFileRow, UserRow } from '../../store/schema.ts';
import { canReadSecureFile } from '../../uploads/access.ts';
import { findStoredFile } from '../../uploads/commands.ts';
import { cardUri } from '../card-uri.ts';
import { catchUpWithChain } from '../index-freshness.ts';
import { chainHolderOf, findMintedCardDesign, holdsCardNaming } from '../metadata/designs.ts';
import { cardMetadataDocument } from '../metadata/document.ts';
import { cardContractById } from '../partner-signing.ts';
import { readCardStatus } from './card-status.ts';
import { findBappName, listChainsNamingSecureFile } from './store.ts';
import { Errors } from '../../errors/codes.ts';

/**
 * A card as its holder sees it: the metadata with its `secure` object and, for a card with a
 * status_url, what that URL says now. 404 for anyone who does not hold it on chain.
 */
export async function heldCardView(deps: { config: Readonly<Config>; store: Store; chains: ChainRegistry }, member: Pick<UserRow, 'main_address'>, nftId: number, cardId: number) {
  const contract = await cardContractById(deps, nftId);
  const found = await findMintedCardDesign(deps, contract, cardId);
  const holder = found && (await chainHolderOf(deps, contract, cardId));
  if (!found || holder !== member.main_address.toLowerCase()) throw new AppError(Errors.NotFound);
  // The service's only outbound call: the card's status, fetched for its holder through the guarded client.
  const status = found.metadata.status_url ? await readCardStatus(found.metadata.status_url, deps.config.cards.statusUrl) : {};
  return {
    nft_id: nftId,
    card_id: cardId,
    card_uri: cardUri(deps.config.publicUrl, nftId, cardId),
    transaction_hash: found.mintTxHash,
    bapp_name: (await findBappName(deps.store.db, contract.partnerId)) ?? contract.name,
    metadata: cardMetadataDocument(found.metadata, { nftId, cardId }),
    secure: found.secure,
    ...status,
  };
}

/** A secure (A6) file that a card the member holds names; 404 otherwise. */
export async function heldSecureFile(
  deps: { store: Store; chains: ChainRegistry; cardIndex: CardIndex; log: Logger },
  member: Pick<UserRow, 'main_address'>,
  name: string,
): Promise<UploadedFileRow> {
  const file = await findStoredFile(deps, name);
  const holders = {
    holdsCardNaming: async (address: string, fileName: string) => {
      // The index finds the candidate cards: let it reach the head of the chains that hold them first.
      const chains = await listChainsNamingSecureFile(deps.store.db, fileName);
      await Promise.all(chains.map((chain) => catchUpWithChain(deps, chain)));
      return holdsCardNaming(deps, address, fileName);
    },
  };
  if (!file || !(await canReadSecureFile(file, { kind: 'holder', address: member.main_address }, holders))) throw new AppError(Errors.NotFound);
  return file;
}
