/** The store's contents, to show that requests changed nothing. */
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Store } from '../store/database.ts';

/** Tables that count requests as they arrive, refused ones too: that is their purpose (http/rate-limit/limits.ts). */
const REQUEST_COUNTERS = new Set(['rate_limit_counts']);

/**
 * Every table's rows but the request counters, to show a sweep of refused requests changed nothing. The tables are listed
 * from this store's own schema: Kysely's introspection reads every schema of a PostgreSQL database,
 * other test files' too, and fails when one of them is dropped meanwhile.
 */
export async function storeSnapshot(services: { store: Store }): Promise<Map<string, string>> {
  const { db, dialect } = services.store;
  const tables =
    dialect === 'postgres'
      ? sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`
      : sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`;
  const snapshot = new Map<string, string>();
  for (const { name } of (await tables.execute(db)).rows) {
    if (REQUEST_COUNTERS.has(name)) continue;
    const rows = await db.selectFrom(name as never).selectAll().execute();
    const text = rows.map((row) => JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))).sort();
    snapshot.set(name, text.join('\n'));
  }
  assert.ok(snapshot.has('outbox_transactions') && snapshot.has('wallet_sessions'), `tables found: ${[...snapshot.keys()].join(', ')}`);
  return snapshot;
}
