import Type from 'typebox';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);

/** Who an address is, as far as the service knows. */
export const Party = Type.Object({
  address: Type.String({ description: 'lower-case; the zero address for a mint' }),
  name: Type.Union([Type.String(), Type.Null()], { description: 'a member, a person whose wallet the service keeps, a BApp, "a claim link"; null when unknown' }),
  kind: Type.Union([Type.Literal('member'), Type.Literal('person'), Type.Literal('bapp'), Type.Literal('claim_link'), Type.Literal('operator'), Type.Literal('unknown')]),
});

const TransactionState = Type.Union([Type.Literal('pending'), Type.Literal('mined'), Type.Literal('failed')]);

export const ActivityRequest = Type.Object({
  kind: Type.Literal('request'),
  request_key: Type.String(),
  type: Type.String(),
  chain: Type.String(),
  status: Type.String({ description: 'prepared, requested, completed, canceled or error, as stored' }),
  state: Type.Union(
    [Type.Literal('not_opened'), Type.Literal('waiting'), Type.Literal('approved'), Type.Literal('canceled'), Type.Literal('failed'), Type.Literal('expired'), Type.Literal('refused')],
    { description: "what happened: `expired` once an unanswered request's time is over; `refused` when the app would not approve it (a BApp named as the operator)" },
  ),
  bapp_name: Type.String(),
  summary: Type.String(),
  time: Type.Integer({ description: 'epoch seconds: when it was made' }),
  finished_at: NullableInteger,
  tx_hash: Type.Optional(Type.String()),
  error: Type.Optional(Type.Object({ code: Type.Integer(), message: Type.String() })),
});

export const ActivityCard = Type.Object({
  kind: Type.Literal('card'),
  chain: Type.String(),
  contract: Type.String(),
  nft_id: Type.Union([Type.Integer(), Type.Null()], { description: 'null for a contract that is not one of this service' }),
  card_id: Type.Integer(),
  card_name: NullableString,
  bapp_name: Type.Union([Type.String(), Type.Null()], { description: "the card's BApp, for a contract of this service" }),
  direction: Type.Union([Type.Literal('sent'), Type.Literal('received')]),
  counterparty: Party,
  tx_hash: Type.String(),
  state: TransactionState,
  time: Type.Integer({ description: 'epoch seconds: the block, or when the send was signed while pending' }),
});

export const ActivityMoney = Type.Object({
  kind: Type.Union([Type.Literal('coin'), Type.Literal('token'), Type.Literal('test_coins')]),
  chain: Type.String(),
  chain_name: Type.String({ description: 'the chain as people know it' }),
  token: Type.Union([Type.String(), Type.Null()], { description: 'the ERC-20 contract; null for coins' }),
  symbol: NullableString,
  decimals: Type.Integer(),
  units: Type.String({ description: 'smallest units, decimal' }),
  direction: Type.Union([Type.Literal('sent'), Type.Literal('received')]),
  counterparty: Party,
  tx_hash: NullableString,
  state: TransactionState,
  time: Type.Integer({ description: 'epoch seconds: when it was sent' }),
});

export const ActivityClaim = Type.Object({
  kind: Type.Literal('claim'),
  claim_id: Type.String(),
  chain: Type.String(),
  nft_id: Type.Integer(),
  card_id: Type.Integer(),
  card_name: NullableString,
  bapp_name: NullableString,
  time: Type.Integer({ description: 'epoch seconds: when it was claimed' }),
});

export const ActivityItem = Type.Union([ActivityRequest, ActivityCard, ActivityMoney, ActivityClaim]);

export const ActivityQuery = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 2000, description: 'next_cursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'items a page; 20 unless given' })),
});

/** The member's activity, newest first: requests, cards, coins, tokens, test coins and claims, a page at a time. */
export const ActivityAnswer = Type.Object({
  items: Type.Array(ActivityItem),
  next_cursor: Type.String({ description: "'' on the last page" }),
});
