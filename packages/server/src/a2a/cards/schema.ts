import Type from 'typebox';

export const CardsQuery = Type.Object({
  sca: Type.Optional(Type.String({ description: 'NFT contract address' })),
  eoa: Type.Optional(Type.String({ description: 'owner address' })),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
  chain: Type.Optional(Type.String({ description: 'main (default), ethereum or polygon' })),
});

const CardEntry = Type.Object({
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
  created_at_format: Type.String(),
  updated_at_format: Type.String(),
  card_id: Type.Union([Type.Integer(), Type.String()]),
  card_uri: Type.String(),
  transaction_hash: Type.String(),
  owner: Type.String(),
  sender: Type.String(),
  sender_kakao_id: Type.String(),
});

export const CardsResponse = Type.Object(
  {
    name: Type.String({ description: 'contract name' }),
    symbol_img: Type.String(),
    cards: Type.Array(CardEntry),
    next_cursor: Type.String({ description: 'empty on the last page' }),
  },
  {
    examples: [
      {
        name: 'Example Cards',
        symbol_img: 'https://wallet.example.com/v2/files/0b6c6a3e-5b4e-4c1e-9f57-3f1f4c7a2d11.png',
        cards: [
          {
            created_at: 1717200000,
            updated_at: 1717200000,
            created_at_format: '2024-06-01 00:00:00',
            updated_at_format: '2024-06-01 00:00:00',
            card_id: 7,
            card_uri: 'https://wallet.example.com/v2/metadata/1/7',
            transaction_hash: '0x9f0c4b3ad1e5f2a7c8b6d4e2f1a3c5b7d9e0f2a4c6b8d0e2f4a6c8b0d2e4f6a8',
            owner: '0x5b38da6a701c568545dcfcb03fcb875f56beddc4',
            sender: '0xab8483f64d9c6d1ecf9b849ae677dd3315835cb2',
            sender_kakao_id: '',
          },
        ],
        next_cursor: '',
      },
    ],
  },
);
