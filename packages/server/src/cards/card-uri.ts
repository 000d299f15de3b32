/**
 * The metadata URL of a card, `{publicUrl}/v2/metadata/{nft_id}/{card_id}`: the `card_uri` of the
 * lists and, through the contract's base URI, its on-chain `tokenURI`.
 * @example cardUri('https://wallet.example', 3, 17) // 'https://wallet.example/v2/metadata/3/17'
 */
export function cardUri(publicUrl: string, nftId: number, cardId: number | bigint): string {
  return `${cardBaseUri(publicUrl, nftId)}${cardId}`;
}

/** The base URI a partner's card contract is deployed with: cardUri without the card id. */
export function cardBaseUri(publicUrl: string, nftId: number): string {
  return `${publicUrl.replace(/\/+$/, '')}/v2/metadata/${nftId}/`;
}
