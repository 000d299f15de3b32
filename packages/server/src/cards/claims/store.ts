import type { Db } from '../../store/database.ts';

/** A card as the claims name it: its chain, lower-case contract address and id. */
export interface ClaimedCard {
  chain: string;
  contract: string;
  /** The token id (a uint256: App2App names cards of any contract). */
  cardId: number | string;
}

function whereCard(card: ClaimedCard) {
  // Decimal without leading zeros, whichever way the id came (a number, or App2App's digit string).
  return { chain: card.chain, contract: card.contract.toLowerCase(), card_id: BigInt(card.cardId).toString() };
}

/** Inserts the claim unless the card has one; true when this call inserted it (the primary key decides across instances). */
export async function insertCardClaim(db: Db, card: ClaimedCard, operation: string, nowMs: number): Promise<boolean> {
  const result = await db
    .insertInto('card_claims')
    .values({ ...whereCard(card), operation, taken_ms: nowMs })
    .onConflict((conflict) => conflict.columns(['chain', 'contract', 'card_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** The operation that holds the card's claim, if any. */
export async function findCardClaimOperation(db: Db, card: ClaimedCard): Promise<string | undefined> {
  const key = whereCard(card);
  const row = await db
    .selectFrom('card_claims')
    .select('operation')
    .where('chain', '=', key.chain)
    .where('contract', '=', key.contract)
    .where('card_id', '=', key.card_id)
    .executeTakeFirst();
  return row?.operation;
}

/**
 * Compare-and-swap: moves the claim from `heldBy` to `operation` when `heldBy` is the same
 * operation (a resumed call), or when `heldBy` is over: its transaction is mined or failed, or it
 * stored none and was last taken or renewed before `staleBeforeMs` (its process stopped before signing). Of two
 * takers only one matches `heldBy`.
 */
export async function takeOverCardClaim(db: Db, card: ClaimedCard, input: { heldBy: string; operation: string; nowMs: number; staleBeforeMs: number }): Promise<boolean> {
  const key = whereCard(card);
  const { heldBy } = input;
  let update = db
    .updateTable('card_claims')
    .set({ operation: input.operation, taken_ms: input.nowMs })
    .where('chain', '=', key.chain)
    .where('contract', '=', key.contract)
    .where('card_id', '=', key.card_id)
    .where('operation', '=', heldBy);
  if (heldBy !== input.operation) {
    update = update.where((eb) => {
      const transaction = eb.selectFrom('outbox_transactions').select('id').where('idempotency_key', '=', heldBy);
      return eb.or([
        eb.exists(transaction.where('status', 'in', ['mined', 'failed'])),
        eb.and([eb.not(eb.exists(transaction)), eb('taken_ms', '<', input.staleBeforeMs)]),
      ]);
    });
  }
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Marks the claim as alive now if `operation` still holds it (its holder is still working). */
export async function renewCardClaim(db: Db, card: ClaimedCard, operation: string, nowMs: number): Promise<void> {
  const key = whereCard(card);
  await db
    .updateTable('card_claims')
    .set({ taken_ms: nowMs })
    .where('chain', '=', key.chain)
    .where('contract', '=', key.contract)
    .where('card_id', '=', key.card_id)
    .where('operation', '=', operation)
    .execute();
}

/** Removes the card's claim if `operation` still holds it. */
export async function deleteCardClaim(db: Db, card: ClaimedCard, operation: string): Promise<void> {
  const key = whereCard(card);
  await db
    .deleteFrom('card_claims')
    .where('chain', '=', key.chain)
    .where('contract', '=', key.contract)
    .where('card_id', '=', key.card_id)
    .where('operation', '=', operation)
    .execute();
}
