import Type from 'typebox';

/**
 * A card's metadata document (document.ts): the ERC-721 metadata fields and the wallet's own. Open,
 * so a field added to the design is served without being listed here first.
 */
export const CardMetadataDocument = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    image: Type.String(),
    nft_id: Type.Integer(),
    card_id: Type.Integer(),
    animation_url: Type.Optional(Type.String()),
    background_color: Type.Optional(Type.String({ description: 'RGB hex without #' })),
    external_url: Type.Optional(Type.String({ description: 'external_link, as ERC-721 names it' })),
    attributes: Type.Optional(Type.Array(Type.Object({ trait_type: Type.String(), value: Type.String() }))),
    // The wallet's own fields of the design (mint/payload.ts), as the wallet app reads them.
    sendable: Type.Optional(Type.Boolean()),
    send_friend_only: Type.Optional(Type.Boolean()),
    group_name: Type.Optional(Type.String()),
    group_icon: Type.Optional(Type.String()),
    hashtags: Type.Optional(Type.Array(Type.String())),
    layout: Type.Optional(Type.Union([Type.Literal('general'), Type.Literal('horizontal'), Type.Literal('vertical')])),
    external_link: Type.Optional(Type.String()),
    custom_links: Type.Optional(Type.Array(Type.Object({ display_name: Type.String(), value: Type.String() }))),
    qr_code: Type.Optional(Type.String({ description: 'URL of the public QR code image' })),
    bar_code: Type.Optional(Type.String({ description: 'URL of the public bar code image' })),
    status_url: Type.Optional(Type.String()),
  },
  {
    additionalProperties: true,
    examples: [
      {
        name: 'Member card',
        description: 'A card for members',
        image: 'https://wallet.example.com/v2/files/0b6c6a3e-5b4e-4c1e-9f57-3f1f4c7a2d11.png',
        nft_id: 1,
        card_id: 7,
        attributes: [{ trait_type: 'level', value: 'gold' }],
        sendable: false,
        layout: 'general',
      },
    ],
  },
);
