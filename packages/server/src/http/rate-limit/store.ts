import { createRequire } from 'node:module';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { sql } from 'kysely';
import type { Db } from '../../store/database.ts';

type Counted = { current: number; ttl: number };
type IncrCallback = (error: Error | null, result?: Counted) => void;

/** @fastify/rate-limit's own in-process store (fixed windows in an LRU map), for the limits kept per process. */
const LocalStore = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  cache?: number,
) => FastifyRateLimitStore;

/** How often a limit deletes its counts whose window has ended. */
const PURGE_EVERY_MS = 60_000;

/**
 * The store class given to @fastify/rate-limit: each limit (`app.rateLimit(options)`) gets a child,
 * which counts in the store's `rate_limit_counts` when the limit says `acrossInstances` (every
 * service process on one database shares the count), else in this process (LocalStore).
 */
export function rateLimitStoreFor(db: Db): FastifyRateLimitStoreCtor {
  return class RateLimitStore implements FastifyRateLimitStore {
    incr(_key: string, callback: IncrCallback): void {
      callback(new Error('a rate limit without its own settings: give app.rateLimit() a limitName'));
    }

    child(routeOptions: object): FastifyRateLimitStore {
      const options = routeOptions as { limitName?: string; acrossInstances?: boolean };
      if (options.acrossInstances) return new SharedCounts(db, options.limitName ?? 'default');
      return new InProcessCounts();
    }
  } as unknown as FastifyRateLimitStoreCtor;
}

/**
 * LocalStore, answering a copy of each count: LocalStore answers the object it keeps, which later
 * requests change before the first has read it (requests that arrive together would all read the last count).
 */
class InProcessCounts implements FastifyRateLimitStore {
  readonly #local = new LocalStore(false, false);

  incr(key: string, callback: IncrCallback, timeWindow: number, max: number): void {
    this.#local.incr(key, (error, counted) => callback(error, counted && { current: counted.current, ttl: counted.ttl }), timeWindow, max);
  }

  child(): FastifyRateLimitStore {
    return this;
  }
}

/** Fixed-window counts in the store: one atomic upsert per request, so concurrent requests in any process are each counted. */
class SharedCounts implements FastifyRateLimitStore {
  readonly #db: Db;
  readonly #limitName: string;
  #lastPurgeMs = 0;

  constructor(db: Db, limitName: string) {
    this.#db = db;
    this.#limitName = limitName;
  }

  incr(key: string, callback: IncrCallback, timeWindow: number): void {
    this.#count(`${this.#limitName}:${key}`, timeWindow, Date.now()).then(
      (counted) => callback(null, counted),
      (error: Error) => callback(error),
    );
  }

  child(): FastifyRateLimitStore {
    return this;
  }

  async #count(key: string, timeWindow: number, nowMs: number): Promise<Counted> {
    const expired = nowMs - timeWindow;
    const row = await this.#db
      .insertInto('rate_limit_counts')
      .values({ key, hits: 1, window_start_ms: nowMs })
      .onConflict((conflict) =>
        conflict.column('key').doUpdateSet({
          hits: sql<number>`case when rate_limit_counts.window_start_ms <= ${expired} then 1 else rate_limit_counts.hits + 1 end`,
          window_start_ms: sql<number>`case when rate_limit_counts.window_start_ms <= ${expired} then ${nowMs} else rate_limit_counts.window_start_ms end`,
        }),
      )
      .returning(['hits', 'window_start_ms'])
      .executeTakeFirstOrThrow();
    if (nowMs - this.#lastPurgeMs > PURGE_EVERY_MS) {
      this.#lastPurgeMs = nowMs;
      await this.#db.deleteFrom('rate_limit_counts').where('key', 'like', `${this.#limitName}:%`).where('window_start_ms', '<=', expired).execute();
    }
    return { current: Number(row.hits), ttl: Number(row.window_start_ms) + timeWindow - nowMs };
  }
}
