import type { KyselyPlugin, QueryId, RootOperationNode } from 'kysely';
import type { Db, Store } from '../store/database.ts';

/**
 * SQLite's plan (EXPLAIN QUERY PLAN, with the query's own parameters) of each query `work` runs
 * through the `db` it is given, in the order they ran: a test of which index a read goes along.
 */
export async function sqlitePlansOf(store: Store, work: (db: Db) => Promise<unknown>): Promise<Array<{ sql: string; plan: string }>> {
  if (store.dialect !== 'sqlite') throw new Error('sqlitePlansOf reads SQLite plans');
  const ran: Array<{ node: RootOperationNode; queryId: QueryId }> = [];
  const recorder: KyselyPlugin = {
    transformQuery: (args) => {
      ran.push(args);
      return args.node;
    },
    transformResult: async ({ result }) => result,
  };
  await work(store.db.withPlugin(recorder));
  const plans: Array<{ sql: string; plan: string }> = [];
  for (const { node, queryId } of ran) {
    const compiled = store.db.getExecutor().compileQuery(node, queryId);
    const explained = await store.db.executeQuery<{ detail: string }>({ ...compiled, sql: `explain query plan ${compiled.sql}` });
    plans.push({ sql: compiled.sql, plan: explained.rows.map((row) => row.detail).join('\n') });
  }
  return plans;
}
