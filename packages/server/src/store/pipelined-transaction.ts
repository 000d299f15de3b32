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
  constructor(private readonly connection: DatabaseConnection) {}

  provideConnection<T>(consumer: (connection: DatabaseConnection) => Promise<T>): Promise<T> {
    return consumer(this.connection);
  }
}

/**
 * Runs PostgreSQL transactions whose `begin` goes out with their first statements, and whose
 * statements made without waiting on each other share a round trip (the pool's clients must be in
 * pipeline mode). Code written for a Kysely transaction runs in one unchanged: a statement that
 * waits for the one before costs the same round trip as before. A statement that fails aborts the
 * transaction, the ones sent behind it fail too, and the transaction is rolled back.
 */
export function pipelinedTransactions(db: Kysely<Database>, dialect: Dialect): <T>(work: (trx: Transaction<Database>) => Promise<T>) => Promise<T> {
  const executor = db.getExecutor();
  // Used only to open nested transactions, which Kysely refuses inside a transaction anyway.
  const driver = dialect.createDriver();
  return (work) =>
    executor.provideConnection(async (connection) => {
      const transaction = new Transaction<Database>({
        config: { dialect },
        dialect,
        driver,
        executor: executor.withConnectionProvider(new PipelinedConnectionProvider(connection)),
      });
      const begun = connection.executeQuery(CompiledQuery.raw('begin'));
      try {
        const result = await work(transaction);
        await begun;
        await connection.executeQuery(CompiledQuery.raw('commit'));
        return result;
      } catch (error) {
        // Statements still on the wire are answered first (they fail once one has failed).
        await begun.catch(() => undefined);
        await connection.executeQuery(CompiledQuery.raw('rollback')).catch(() => undefined);
        throw error;
      }
    });
}
