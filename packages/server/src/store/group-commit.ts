import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;
type DbTransaction = Transaction<Database>;

/** Most pieces of work one shared commit takes. */
const MAX_GROUP = 64;

interface QueuedWork {
  work(trx: DbTransaction): Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit of independent small write transactions on SQLite. better-sqlite3 runs a COMMIT
 * (an fsync, with synchronous=FULL) on the event loop's thread, and the store has one connection,
 * so every commit stops the whole process for the time of an fsync: calls in flight that each
 * commit on their own take turns at the disk. Here the work that arrives in the same turn of the
 * event loop runs in one transaction, each piece inside its own savepoint: a piece that throws
 * is rolled back alone and its caller gets the error, the others are committed together. No caller
 * is answered before the commit that holds its writes, so durability is that of a transaction
 * of its own.
 *
 * A piece must only read and write the store through `trx` (no chain calls, no waiting on other
 * work), as in any transaction: it holds the others' commit while it runs.
 */
export class GroupCommit {
  private readonly queue: QueuedWork[] = [];
  private scheduled = false;
  private running = false;

  constructor(private readonly db: Db) {}

  run<T>(work: (trx: DbTransaction) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    this.running = true;
    const group = this.queue.splice(0, MAX_GROUP);
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      await this.db.transaction().execute(async (trx) => {
        for (const [index, item] of group.entries()) {
          const savepoint = sql.raw(`group_work_${index}`);
          await sql`savepoint ${savepoint}`.execute(trx);
          try {
            outcomes.push({ ok: true, value: await item.work(trx) });
            await sql`release ${savepoint}`.execute(trx);
          } catch (error) {
            await sql`rollback to ${savepoint}`.execute(trx);
            await sql`release ${savepoint}`.execute(trx);
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      // The commit itself (or a rollback to a savepoint) failed: nothing of the group was stored.
      for (const item of group) item.reject(error);
      return;
    } finally {
      this.running = false;
      this.schedule();
    }
    group.forEach((item, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }
}
