import type { Static } from 'typebox';
import type { CardMetadata } from '../mint/payload.ts';
import type { CardMetadataDocument } from './schema.ts';

/**
 * The metadata JSON of a card: the ERC-721 metadata fields (name, description, image,
 * animation_url, background_color without '#', attributes, external_url) and the wallet's own
 * fields (external_link, sendable, layout, group, hashtags, links, codes, status_url).
 */
export function cardMetadataDocument(metadata: CardMetadata, ids: { nftId: number; cardId: number }): Static<typeof CardMetadataDocument> {
  const document: Static<typeof CardMetadataDocument> = { ...metadata, nft_id: ids.nftId, card_id: ids.cardId };
  if (metadata.background_color) document.background_color = metadata.background_color.replace(/^#/, '');
  if (metadata.external_link) document.external_url = metadata.external_link;
  return document;
}
