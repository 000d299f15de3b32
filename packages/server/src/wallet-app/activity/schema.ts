import Type from 'typebox';

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const ActivityRequest = Type.Object({
  request_key: Type.String(),
  type: Type.String(),
  chain: Type.String(),
  status: Type.String({ description: 'prepared, requested, completed, canceled or error' }),
  bapp_name: Type.String(),
  summary: Type.String(),
  created_at: Type.Integer({ description: 'epoch seconds' }),
  finished_at: Type.Union([Type.Integer(), Type.Null()]),
  tx_hash: Type.Optional(Type.String()),
  error: Type.Optional(Type.Object({ code: Type.Integer(), message: Type.String() })),
});

export const ActivityCardTransfer = Type.Object({
  chain: Type.String(),
  contract: Type.String(),
  nft_id: Type.Union([Type.Integer(), Type.Null()], { description: 'null for a contract that is not one of this service' }),
  card_id: Type.Integer(),
  card_name: NullableString,
  direction: Type.Union([Type.Literal('sent'), Type.Literal('received')]),
  counterparty: Type.String({ description: 'the other address (the zero address for a mint)' }),
  tx_hash: Type.String(),
  state: Type.Union([Type.Literal('pending'), Type.Literal('mined'), Type.Literal('failed')]),
  time: Type.Integer({ description: 'epoch seconds: the block, or when the send was signed while pending' }),
});

/** The member's recent App2App requests and card transfers, newest first (50 of each). */
export const ActivityAnswer = Type.Object({
  requests: Type.Array(ActivityRequest),
  card_transfers: Type.Array(ActivityCardTransfer),
});
