import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/** Family A, part 1: the wrong-password back-off and the record of uploaded files. */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('sign_in_failures')
    // `account:<partner id>` or `address:<client address>`.
    .addColumn('scope', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_failure_ms', 'bigint', (c) => c.notNull())
    .addColumn('blocked_until_ms', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('uploaded_files')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('storage_key', 'text', (c) => c.notNull().unique())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('partner_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('uploaded_files_partner').on('uploaded_files').columns(['partner_id', 'created_at']).execute();
}
