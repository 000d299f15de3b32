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

export const CardsResponse = Type.Object({
  name: Type.String(),
  symbol_img: Type.String(),
  cards: Type.Array(CardEntry),
  next_cursor: Type.String(),
});
