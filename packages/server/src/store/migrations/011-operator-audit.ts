import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/** Every operator action (who, what, on what, before, after, when): `wallet-service audit list`. */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('operator_audit')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('at_ms', 'bigint', (column) => column.notNull())
    .addColumn('actor', 'text', (column) => column.notNull())
    .addColumn('action', 'text', (column) => column.notNull())
    .addColumn('target', 'text', (column) => column.notNull())
    .addColumn('before_json', 'text')
    .addColumn('after_json', 'text')
    .execute();
  await db.schema.createIndex('operator_audit_at').on('operator_audit').columns(['at_ms', 'id']).execute();
}
