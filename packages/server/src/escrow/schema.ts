import Type, { type Static } from 'typebox';
import { contractCardPage, ListedCard } from '../cards/lists/schema.ts';
import { CardId } from '../cards/ids.ts';
import { Address } from '../cards/mint/payload.ts';
import { ErrorBody, Sha256Hex } from '../http/schema.ts';
import { secret } from '../lib/secret.ts';

/** A15 to A19 answer a failure outside the listed codes with the registry's 500 body, as the specification has them. */
export const EscrowFailure = ErrorBody;

/** Largest card_ids of A17 and A19 (the escrow contract's MAX_BATCH_SIZE too). */
export const MAX_ESCROW_CARDS = 100;

const CardIds = Type.Array(CardId, {
  minItems: 1,
  maxItems: MAX_ESCROW_CARDS,
  uniqueItems: true,
});

/** A15 body. */
export const EscrowApproveBody = Type.Object({ pin: secret(Sha256Hex), contract_address: Address }, { additionalProperties: true });

/** A15 answer: the approval transaction. */
export const TxHashAnswer = Type.Object({ tx_hash: Type.String() });

/** A16 and A18 query. */
export const EscrowContractQuery = Type.Object({
  contract_address: Address,
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous A18 page' })),
});

/** A16 answer. */
export const EscrowApprovalAnswer = Type.Object({ approve: Type.Boolean() });

/** A17 and A19 body. */
export const EscrowCardsBody = Type.Object({ pin: secret(Sha256Hex), card_ids: CardIds, contract_address: Address }, { additionalProperties: true });
export type EscrowCardsBody = Static<typeof EscrowCardsBody>;

/** A17 answer: the escrow result of the specification, plus which card ids failed. */
export const EscrowDepositAnswer = Type.Object(
  {
    /** One link per card put into escrow, in the order of card_ids. */
    claim_links: secret(Type.Array(Type.String())),
    fail_count: Type.Integer(),
    /** The card_ids that were not put into escrow (fail_count of them), in request order. */
    failed_card_ids: Type.Array(Type.Integer()),
    tx_hash: Type.String(),
  },
  {
    examples: [
      {
        claim_links: ['https://wallet.example.com/claim/q9Vt0bq3Rz2mYk8xWc1LdA#5f0c…'],
        fail_count: 0,
        failed_card_ids: [],
        tx_hash: '0x9f0c4b3ad1e5f2a7c8b6d4e2f1a3c5b7d9e0f2a4c6b8d0e2f4a6c8b0d2e4f6a8',
      },
    ],
  },
);
export type EscrowDepositAnswer = Static<typeof EscrowDepositAnswer>;

/** A19 answer. */
export const EscrowCancelAnswer = Type.Object({
  fail_count: Type.Integer(),
  /** The card_ids that were not taken back (fail_count of them), in request order. */
  failed_card_ids: Type.Array(Type.Integer()),
  tx_hash: Type.String(),
});
export type EscrowCancelAnswer = Static<typeof EscrowCancelAnswer>;

/** A card of A18: the Card table of the specification with owner and sender. */
export const EscrowedCard = Type.Object({
  ...ListedCard.properties,
  /** The escrow contract, which holds the card. */
  owner: Type.String(),
  /** The partner's address, which put the card into escrow. */
  sender: Type.String(),
});

/** A18 answer. */
export const EscrowListAnswer = contractCardPage(EscrowedCard);
export type EscrowListAnswer = Static<typeof EscrowListAnswer>;

/** The claim link's secret: 32 bytes of hex, as the link's fragment carries it. */
export const ClaimSecretBody = Type.Object({ secret: secret(Type.String({ pattern: '^(0x)?[0-9a-fA-F]{64}$' })) });

/** The claim link's id. */
export const ClaimParams = Type.Object({ claim_id: Type.String({ pattern: '^[A-Za-z0-9_-]{22}$' }) });

/** The card behind a claim link and where it stands. */
export const ClaimView = Type.Object({
  claim_id: Type.String(),
  chain: Type.String(),
  nft_id: Type.Integer(),
  card_id: Type.Integer(),
  contract_address: Type.String(),
  card_uri: Type.String(),
  name: Type.String({ description: "the card's name" }),
  partner: Type.String({ description: "the partner's service name" }),
  status: Type.Union([Type.Literal('in_escrow'), Type.Literal('claimed'), Type.Literal('not_in_escrow')]),
  claimed_to: Type.Union([Type.String(), Type.Null()]),
});

/** A claimed card: the view, and the claim's transaction. */
export const ClaimedCard = Type.Object({ ...ClaimView.properties, tx_hash: Type.String() });
