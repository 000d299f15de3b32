import { AppError } from '../../errors/app-error.ts';
import { Errors } from '../../errors/codes.ts';
import type { Store } from '../../store/database.ts';
import type { TransactionOutbox } from '../../outbox/outbox.ts';
import { deleteCardClaim, findCardClaimOperation, insertCardClaim, takeOverCardClaim, type ClaimedCard } from './store.ts';

export type { ClaimedCard };

/**
 * How long a claim whose operation stored no transaction holds the card: longer than any call takes
 * from its claim to its submission, so only a claim left by a stopped process is taken over.
 */
export const CARD_CLAIM_LEASE_MS = 60_000;

/** Tries to insert or take over the claim a few times: a claim released between the two reads is free again. */
const CLAIM_TRIES = 3;

/**
 * One operation per card at a time. An operation that moves, burns, escrows or cancels a card
 * claims it in the store before anything is signed, under the outbox key of the transaction it is
 * about to submit; another operation on the card is refused (4209) until that transaction is final.
 * Answers the cards of `cards` this operation now holds (the others are busy).
 */
export async function takeCardClaims(deps: { store: Store }, cards: readonly ClaimedCard[], operation: string): Promise<ClaimedCard[]> {
  const taken: ClaimedCard[] = [];
  for (const card of uniqueCards(cards)) {
    if (await takeCardClaim(deps, card, operation)) taken.push(card);
  }
  return taken;
}

async function takeCardClaim(deps: { store: Store }, card: ClaimedCard, operation: string): Promise<boolean> {
  const db = deps.store.db;
  for (let attempt = 0; attempt < CLAIM_TRIES; attempt++) {
    const nowMs = Date.now();
    if (await insertCardClaim(db, card, operation, nowMs)) return true;
    const heldBy = await findCardClaimOperation(db, card);
    if (heldBy === undefined) continue;
    return takeOverCardClaim(db, card, { heldBy, operation, nowMs, staleBeforeMs: nowMs - CARD_CLAIM_LEASE_MS });
  }
  return false;
}

/**
 * Lets the cards go when the operation's transaction is final, or when it never stored one (refused,
 * or failed before signing). A transaction still pending keeps the claim: the call answered before
 * it was mined (503, or an App2App approval that answers on submission), and the claim is taken
 * over once it is final.
 */
export async function releaseCardClaims(deps: { store: Store; outbox: TransactionOutbox }, cards: readonly ClaimedCard[], operation: string): Promise<void> {
  const transaction = await deps.outbox.findByIdempotencyKey(operation);
  if (transaction?.status === 'signed') return;
  for (const card of uniqueCards(cards)) await deleteCardClaim(deps.store.db, card, operation);
}

/** Runs `run` holding the card's claim (4209 when another operation holds it), then releases it (releaseCardClaims). */
export async function withCardClaim<T>(deps: { store: Store; outbox: TransactionOutbox }, card: ClaimedCard, operation: string, run: () => Promise<T>): Promise<T> {
  const [taken] = await takeCardClaims(deps, [card], operation);
  if (!taken) throw new AppError(Errors.CardBusy);
  try {
    return await run();
  } finally {
    await releaseCardClaims(deps, [card], operation);
  }
}

function uniqueCards(cards: readonly ClaimedCard[]): ClaimedCard[] {
  const seen = new Map<string, ClaimedCard>();
  for (const card of cards) seen.set(`${card.chain}:${card.contract.toLowerCase()}:${BigInt(card.cardId)}`, card);
  return [...seen.values()];
}
