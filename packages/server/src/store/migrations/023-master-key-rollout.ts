import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * The serving instances and the master key each runs with (`keys status`, `keys finish-rotation`):
 * one row per `serve` process, written at start and every few seconds, deleted at a clean stop. A
 * rotation's old key is retired only once no live row names it (docs/operations.md).
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('service_instances')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('host', 'text', (column) => column.notNull())
    .addColumn('pid', 'integer', (column) => column.notNull())
    .addColumn('master_key_id', 'text', (column) => column.notNull())
    .addColumn('started_at_ms', 'bigint', (column) => column.notNull())
    .addColumn('seen_at_ms', 'bigint', (column) => column.notNull())
    .execute();
}
