import { AppError } from '../../errors/app-error.ts';
import { Errors } from '../../errors/codes.ts';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/database.ts';
import type { TransactionOutbox } from '../../outbox/outbox.ts';
import { deleteCardClaim, findCardClaimOperation, insertCardClaim, renewCardClaim, takeOverCardClaim, type ClaimedCard } from './store.ts';

export type { ClaimedCard };

/** Tries to insert or take over the claim a few times: a claim released between the two reads is free again. */
const CLAIM_TRIES = 3;

/** Cards an operation holds: renewed while it works, let go by `release`. */
export interface CardClaimHold {
  /** The cards asked for that this operation now holds (the others are busy). */
  cards: ClaimedCard[];
  /** Stops the renewals and lets the cards go (releaseCardClaims: kept while the transaction is pending). */
  release(): Promise<void>;
}

/**
 * One operation per card at a time. An operation that moves, burns, escrows or cancels a card
 * claims it in the store before anything is signed, under the outbox key of the transaction it is
 * about to submit; another operation on the card is refused (4209) until that transaction is final.
 * While the operation works (a slow PIN unlock, signing, a busy store) the claim is renewed every
 * third of `cards.claimLeaseMs`, so only the claim of a stopped process runs out and is taken over.
 */
export async function holdCardClaims(deps: { config: Readonly<Config>; store: Store; outbox: TransactionOutbox }, cards: readonly ClaimedCard[], operation: string): Promise<CardClaimHold> {
  const leaseMs = deps.config.cards.claimLeaseMs;
  const taken = await takeCardClaims({ store: deps.store, leaseMs }, cards, operation);
  let renewing: Promise<void> = Promise.resolve();
  const renew = () => {
    // One renewal at a time; a missed one is made up by the next (the lease outlasts two).
    renewing = renewing.then(async () => {
      for (const card of taken) await renewCardClaim(deps.store.db, card, operation, Date.now()).catch(() => {});
    });
  };
  const timer = taken.length > 0 ? setInterval(renew, Math.floor(leaseMs / 3)) : undefined;
  timer?.unref();
  return {
    cards: taken,
    async release() {
      clearInterval(timer);
      await renewing;
      await releaseCardClaims(deps, taken, operation);
    },
  };
}

/**
 * Claims what it can of `cards` for `operation`, once, without renewing (holdCardClaims renews):
 * a claim older than `leaseMs` whose operation stored no transaction is taken over.
 */
export async function takeCardClaims(deps: { store: Store; leaseMs: number }, cards: readonly ClaimedCard[], operation: string): Promise<ClaimedCard[]> {
  const taken: ClaimedCard[] = [];
  for (const card of uniqueCards(cards)) {
    if (await takeCardClaim(deps, card, operation)) taken.push(card);
  }
  return taken;
}

async function takeCardClaim(deps: { store: Store; leaseMs: number }, card: ClaimedCard, operation: string): Promise<boolean> {
  const db = deps.store.db;
  for (let attempt = 0; attempt < CLAIM_TRIES; attempt++) {
    const nowMs = Date.now();
    if (await insertCardClaim(db, card, operation, nowMs)) return true;
    const heldBy = await findCardClaimOperation(db, card);
    if (heldBy === undefined) continue;
    return takeOverCardClaim(db, card, { heldBy, operation, nowMs, staleBeforeMs: nowMs - deps.leaseMs });
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
  if (transaction?.status === 'signed' || transaction?.status === 'included') return;
  for (const card of uniqueCards(cards)) await deleteCardClaim(deps.store.db, card, operation);
}

/** Runs `run` holding the card's claim (4209 when another operation holds it), then releases it (releaseCardClaims). */
export async function withCardClaim<T>(deps: { config: Readonly<Config>; store: Store; outbox: TransactionOutbox }, card: ClaimedCard, operation: string, run: () => Promise<T>): Promise<T> {
  const hold = await holdCardClaims(deps, [card], operation);
  if (hold.cards.length === 0) throw new AppError(Errors.CardBusy);
  try {
    return await run();
  } finally {
    await hold.release();
  }
}

function uniqueCards(cards: readonly ClaimedCard[]): ClaimedCard[] {
  const seen = new Map<string, ClaimedCard>();
  for (const card of cards) seen.set(`${card.chain}:${card.contract.toLowerCase()}:${BigInt(card.cardId)}`, card);
  return [...seen.values()];
}
