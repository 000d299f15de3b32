import type { Address } from 'viem';

/** A seeded pseudo-random source (mulberry32): the same seed gives the same choices. */
export class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** An address nobody holds a key to, made from the seed (recipients of sends). */
  address(): Address {
    let hex = '';
    while (hex.length < 40) hex += Math.floor(this.next() * 0x100000000).toString(16).padStart(8, '0');
    return `0x${hex.slice(0, 40)}` as Address;
  }
}

export const BURNED = 'burned';

/** One call the load made on a card, kept for the report of a loss. */
export interface CardEvent {
  kind: string;
  /** When the call was sent and when its answer (or its failure) came, epoch ms. */
  sentAt: number;
  doneAt: number;
  /** The instance that took the call. */
  instance: string;
  outcome: 'answered' | 'refused' | 'unanswered';
  /** The owner the call moves the card to. */
  to: string;
  /** HTTP status and the answer's body (cut short), or why there was none. */
  answer: string;
  /** The transaction hash the answer named, if any. */
  hash?: string;
}

/** Starts and kills with their times, for the report of a loss (which instance took a call, what was killed around it). */
export type Timeline = Array<{ at: number; line: string }>;

/** A card as the load knows it: the owners the chain may show (one once every call on it was answered). */
export interface CardState {
  partner: number;
  cardId: number;
  possible: Set<string>;
  /** Every call on it, oldest first. */
  history: CardEvent[];
  /** An operation on it is in flight. */
  busy: boolean;
  /** Escrow claim link, while the card is in escrow under it. */
  claim?: { id: string; secret: string };
}

/** Coins the load sent through App2App to a fresh address: the chain must show exactly this. */
export interface CoinExpectation {
  address: Address;
  wei: bigint;
  /** Not answered (the instance or the node died): 0 or `wei`, never more. */
  certain: boolean;
}

/** What the load did, and what the chain must show for it. */
export class LoadModel {
  readonly cards = new Map<string, CardState>();
  readonly coins: CoinExpectation[] = [];
  /** Fresh addresses a mint named once: each may hold one card at most (exactly one once answered). */
  readonly freshMintRecipients = new Map<Address, { partner: number; answered: boolean }>();
  readonly operations = new Map<string, { answered: number; refused: number; unanswered: number }>();

  count(kind: string, outcome: 'answered' | 'refused' | 'unanswered'): void {
    let entry = this.operations.get(kind);
    if (!entry) this.operations.set(kind, (entry = { answered: 0, refused: 0, unanswered: 0 }));
    entry[outcome] += 1;
  }

  get totals(): { answered: number; refused: number; unanswered: number } {
    const totals = { answered: 0, refused: 0, unanswered: 0 };
    for (const entry of this.operations.values()) {
      totals.answered += entry.answered;
      totals.refused += entry.refused;
      totals.unanswered += entry.unanswered;
    }
    return totals;
  }

  addCard(partner: number, cardId: number, owner: string, minted: CardEvent): void {
    this.cards.set(`${partner}:${cardId}`, { partner, cardId, possible: new Set([owner.toLowerCase()]), history: [minted], busy: false });
  }

  /** A card of `partner` certainly held by `owner`, not in use, taken for an operation (busy). */
  takeCard(random: Random, partner: number | undefined, owner: (card: CardState) => boolean): CardState | undefined {
    const free = [...this.cards.values()].filter(
      (card) => !card.busy && card.possible.size === 1 && (partner === undefined || card.partner === partner) && owner(card),
    );
    if (free.length === 0) return undefined;
    const card = random.pick(free);
    card.busy = true;
    return card;
  }

  static ownerOf(card: CardState): string {
    return [...card.possible][0]!;
  }
}
