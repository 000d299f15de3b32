import type { ResultAnswer } from './commands.ts';

/**
 * How this process knows that nothing it holds was changed elsewhere. `position()` is read before an
 * answer is loaded from the store (null: hold nothing now); `current()` at a poll, after every
 * change committed before the call was announced (HeldResults.changed). A held answer is served
 * only while the two are equal: no announcement can have been missed since it was loaded.
 */
export interface ChangeFeed {
  position(): number | null;
  current(): number | null | Promise<number | null>;
}

/** An answer of B3 held in memory: what is sent, and until when it holds. */
export interface HeldAnswer {
  httpStatus: number;
  /** The body, serialized once when it was loaded, and its length in bytes. */
  json: string;
  bytes: number;
  /** Epoch seconds after which this answer no longer holds (the request expires, or its retention ends). */
  until: number;
  position: number;
}

/** What a load of an answer started from: whether it may be held when it arrives. */
export interface LoadTicket {
  position: number;
  changes: number;
}

/** Answers held by default: about 300 bytes each. */
export const HELD_ANSWERS = 10_000;

/**
 * B3 answers held in memory, so that a poll of a request that has not changed reads no store.
 * Every change of a request (in this process or another) is announced through `changed`, which drops
 * its answer; the next poll loads it again. An answer is only ever held when it was loaded while the
 * change feed was current and no announcement came during the load; it is dropped when it stops
 * holding in time, and the least recently polled answers go first when there are `capacity`.
 */
export class HeldResults {
  readonly #answers = new Map<string, HeldAnswer>();
  readonly #feed: ChangeFeed;
  readonly #capacity: number;
  /** Counts announcements: a load during which one came is not held (its answer may predate it). */
  #changes = 0;
  /** Polls answered from memory (the bench reports their share). */
  hits = 0;

  constructor(feed: ChangeFeed, capacity = HELD_ANSWERS) {
    this.#feed = feed;
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#answers.size;
  }

  /** Whether an answer of the key is held (whether it still holds is find's business). */
  has(requestKey: string): boolean {
    return this.#answers.has(requestKey);
  }

  /** A request changed (or may have): its held answer goes. */
  changed(requestKey: string): void {
    this.#changes += 1;
    this.#answers.delete(requestKey);
  }

  /** Announcements may have been missed: everything goes. */
  clear(): void {
    this.#changes += 1;
    this.#answers.clear();
  }

  /**
   * The held answer of the key, if it still holds at `now` (epoch seconds). At once where the change
   * feed answers at once (SQLite), else once it has caught up (PostgreSQL).
   */
  find(requestKey: string, now: number): HeldAnswer | undefined | Promise<HeldAnswer | undefined> {
    const held = this.#answers.get(requestKey);
    if (!held) return undefined;
    const position = this.#feed.current();
    return position instanceof Promise ? position.then((caughtUp) => this.#check(requestKey, held, caughtUp, now)) : this.#check(requestKey, held, position, now);
  }

  #check(requestKey: string, held: HeldAnswer, position: number | null, now: number): HeldAnswer | undefined {
    // Announcements that arrived while the feed caught up have dropped the answer already.
    if (this.#answers.get(requestKey) !== held) return undefined;
    if (position !== held.position) {
      if (position === null) this.clear();
      else this.#answers.delete(requestKey);
      return undefined;
    }
    if (now > held.until) {
      this.#answers.delete(requestKey);
      return undefined;
    }
    // Most recently polled last: eviction takes the first.
    this.#answers.delete(requestKey);
    this.#answers.set(requestKey, held);
    this.hits += 1;
    return held;
  }

  /** Taken before loading an answer from the store; undefined when nothing may be held now. */
  ticket(): LoadTicket | undefined {
    const position = this.#feed.position();
    return position === null ? undefined : { position, changes: this.#changes };
  }

  /**
   * Holds an answer loaded under `ticket` unless something was announced since it was taken.
   * Unknown keys are not held (anyone can poll any string); nor is an answer with no end in time.
   */
  hold(requestKey: string, ticket: LoadTicket | undefined, answer: ResultAnswer, json: string): void {
    if (!ticket || ticket.changes !== this.#changes || answer.marker === null) return;
    const until = answer.expiresAt !== null ? answer.expiresAt - 1 : answer.readableUntil;
    if (until === null) return;
    this.#answers.delete(requestKey);
    if (this.#answers.size >= this.#capacity) this.#answers.delete(this.#answers.keys().next().value!);
    this.#answers.set(requestKey, { httpStatus: answer.httpStatus, json, bytes: Buffer.byteLength(json), until, position: ticket.position });
  }
}
