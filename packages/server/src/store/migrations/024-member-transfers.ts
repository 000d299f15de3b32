import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * Coins and tokens a member sent from the wallet app, and test coins the faucet sent her: one row
 * per send, keyed by the member and the idempotency key her app sent, so identical retries (or
 * racing copies) name one send and one outbox transaction (`outbox_key`). `request_hash` tells a
 * retry from another send reusing the key. The activity list pages through them by
 * (`user_id`, `created_ms`, `id`).
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('member_transfers')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('idempotency_key', 'text', (column) => column.notNull())
    .addColumn('request_hash', 'text', (column) => column.notNull())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('chain', 'text', (column) => column.notNull())
    .addColumn('token', 'text')
    .addColumn('to_address', 'text', (column) => column.notNull())
    .addColumn('units', 'text', (column) => column.notNull())
    .addColumn('outbox_key', 'text', (column) => column.notNull())
    .addColumn('created_ms', 'bigint', (column) => column.notNull())
    .addUniqueConstraint('member_transfers_key', ['user_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('member_transfers_user_time').on('member_transfers').columns(['user_id', 'created_ms', 'id']).execute();
}
