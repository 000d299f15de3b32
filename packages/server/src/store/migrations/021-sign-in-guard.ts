import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * The per-address rate limits that must hold across service processes (http/rate-limit/limits.ts: B1
 * prepare and wallet-app sign-up by default) count here: one row per limit and client address,
 * its requests in the current fixed window. The wrong-password back-off's scopes
 * (sign_in_failures) gain `pair:<address>|<login>`, which needs no change of shape.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('rate_limit_counts')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('hits', 'integer', (c) => c.notNull())
    .addColumn('window_start_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limit_counts_window').on('rate_limit_counts').column('window_start_ms').execute();
}
