import { CompiledQuery, Transaction, type ConnectionProvider, type DatabaseConnection, type Dialect, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Hands one connection to every query at once. Kysely's own transactions queue each statement
 * behind the answer to the one before; here a statement goes to node-postgres as soon as it is made
 * (Kysely's path from `execute()` to the driver is synchronous), and a client in pipeline mode
 * writes it on the wire at once. PostgreSQL runs them in the order they arrive, so statements made
 * one after another without waiting keep their order (and the order of the locks they take), and
 * cost one round trip between them instead of one each.
 */
class PipelinedConnectionProvider implements ConnectionProvider {
  /** Set once `commit` is on the wire: a statement made after it would run outside the transaction. */
  committing = false;

  constructor(private readonly connection: DatabaseConnection) {}

  provideConnection<T>(consumer: (connection: DatabaseConnection) => Promise<T>): Promise<T> {
    if (this.committing) return Promise.reject(new Error('a statement was made after its transaction was committed (commitBehindSent)'));
    return consumer(this.connection);
  }
}

/** The `commitBehindSent` of each open pipelined transaction. */
const commitsBehind = new WeakMap<Transaction<Database>, () => void>();

/**
 * Sends the transaction's `commit` now, behind the statements already sent, instead of after the
 * work's answer: the commit shares their round trip. Only for work that has made its last statement
 * and decides nothing more from the answers, since from here a throw of its own no longer undoes
 * anything; a statement of it that fails still takes the whole transaction back (PostgreSQL answers
 * such a commit with a rollback), and the work's error is the caller's answer as before. A statement
 * made after this is refused. No effect outside a pipelined transaction (SQLite), where the commit
 * follows the work.
 */
export function commitBehindSent(trx: Transaction<Database>): void {
  commitsBehind.get(trx)?.();
}

/**
 * Runs PostgreSQL transactions whose `begin` goes out with their first statements, and whose
 * statements made without waiting on each other share a round trip (the pool's clients must be in
 * pipeline mode). Code written for a Kysely transaction runs in one unchanged: a statement that
 * waits for the one before costs the same round trip as before. A statement that fails aborts the
 * transaction, the ones sent behind it fail too, and the transaction is rolled back. Without
 * `synchronousCommit` the commit answers before its WAL is flushed to disk (Store.unsyncedTransaction).
 */
export function pipelinedTransactions(
  db: Kysely<Database>,
  dialect: Dialect,
  options: { synchronousCommit: boolean } = { synchronousCommit: true },
): <T>(work: (trx: Transaction<Database>) => Promise<T>) => Promise<T> {
  const executor = db.getExecutor();
  // Used only to open nested transactions, which Kysely refuses inside a transaction anyway.
  const driver = dialect.createDriver();
  return (work) =>
    executor.provideConnection(async (connection) => {
      const provider = new PipelinedConnectionProvider(connection);
      const transaction = new Transaction<Database>({
        config: { dialect },
        dialect,
        driver,
        executor: executor.withConnectionProvider(provider),
      });
      const opening = [connection.executeQuery(CompiledQuery.raw('begin'))];
      // Sent behind `begin` in the same round trip: the setting costs no wait of its own.
      if (!options.synchronousCommit) opening.push(connection.executeQuery(CompiledQuery.raw('set local synchronous_commit = off')));
      const begun = Promise.all(opening);
      let committed: Promise<unknown> | undefined;
      const commit = () => {
        if (committed) return committed;
        provider.committing = true;
        committed = connection.executeQuery(CompiledQuery.raw('commit'));
        // Awaited below, after the work; marked handled now.
        committed.catch(() => undefined);
        return committed;
      };
      commitsBehind.set(transaction, commit);
      try {
        const result = await work(transaction);
        await begun;
        await commit();
        return result;
      } catch (error) {
        // Statements still on the wire are answered first (they fail once one has failed).
        await begun.catch(() => undefined);
        // A commit already sent behind a failed statement was answered with a rollback.
        if (committed) await committed.catch(() => undefined);
        else await connection.executeQuery(CompiledQuery.raw('rollback')).catch(() => undefined);
        throw error;
      } finally {
        commitsBehind.delete(transaction);
      }
    });
}
