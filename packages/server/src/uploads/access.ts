import type { UploadedFileRow } from '../store/schema.ts';

/** Who asks to read a secure (A6) file. */
export type SecureFileViewer =
  /** A partner, authenticated by its access token. */
  | { kind: 'partner'; partnerId: string }
  /** A wallet member, by the address that holds their cards. */
  | { kind: 'holder'; address: string };

/**
 * Answers whether an address holds a card whose `secure` object (images or animations) names a
 * file. The card index provides it once cards are minted and indexed (A7 and later).
 */
export interface CardHolderIndex {
  holdsCardNaming(address: string, fileName: string): Promise<boolean>;
}

/**
 * Whether a viewer may read a secure file: the partner that uploaded it, or the holder of a card
 * that names it. Without a card holder index every holder is refused: holder access arrives with
 * the card index, and until then only the uploading partner reads its secure files.
 *
 * @example
 * await canReadSecureFile(file, { kind: 'partner', partnerId: partner.id });             // true for the uploader
 * await canReadSecureFile(file, { kind: 'holder', address }, services.cardHolderIndex);  // once the card index exists
 */
export async function canReadSecureFile(
  file: Pick<UploadedFileRow, 'name' | 'partner_id' | 'visibility'>,
  viewer: SecureFileViewer,
  holders?: CardHolderIndex,
): Promise<boolean> {
  if (file.visibility !== 'secure') return false;
  switch (viewer.kind) {
    case 'partner':
      return viewer.partnerId === file.partner_id;
    case 'holder':
      return holders ? holders.holdsCardNaming(viewer.address.toLowerCase(), file.name) : false;
    default: {
      const unknown: never = viewer;
      throw new Error(`unknown viewer ${JSON.stringify(unknown)}`);
    }
  }
}
