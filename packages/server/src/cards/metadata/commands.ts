import { AppError } from '../../errors/app-error.ts';
import type { Store } from '../../store/database.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import { cardContractById } from '../partner-signing.ts';
import { cardMetadataDocument } from './document.ts';
import { chainHolderOf, findMintedCardDesign } from './designs.ts';
import { Errors } from '../../errors/codes.ts';

/** The public metadata of a card (never its `secure`); 404 for a burned card or one no mint of ours made. */
export async function publicCardMetadata(deps: { store: Store; chains: ChainRegistry }, nftId: number, cardId: number) {
  const contract = await cardContractById(deps, nftId).catch(() => undefined);
  const found = contract && (await findMintedCardDesign(deps, contract, cardId));
  if (!contract || !found) throw new AppError(Errors.NotFound);
  // Burned is read from the chain (ownerOf reverts): the index may not have the burn yet.
  if (!(await chainHolderOf(deps, contract, cardId))) throw new AppError(Errors.NotFound);
  return cardMetadataDocument(found.metadata, { nftId: contract.nftId, cardId });
}
