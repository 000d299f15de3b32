import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * Partner API idempotency keys (docs/partner-api.md, "Idempotency keys"): one row per partner and
 * key, claimed by a unique primary key so two instances never run the same call. A mint also
 * records its key on its design, in the transaction that accepts the mint, so a retry after the
 * service stopped half-way finds the mint instead of minting again.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('partner_idempotency_keys')
    .addColumn('partner_id', 'text', (column) => column.notNull())
    .addColumn('idempotency_key', 'text', (column) => column.notNull())
    .addColumn('fingerprint', 'text', (column) => column.notNull())
    .addColumn('state', 'text', (column) => column.notNull())
    .addColumn('holder', 'text', (column) => column.notNull())
    .addColumn('lease_until_ms', 'bigint', (column) => column.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_type', 'text')
    .addColumn('response_body', 'text')
    .addColumn('created_at_ms', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('partner_idempotency_keys_pk', ['partner_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('partner_idempotency_keys_created').on('partner_idempotency_keys').column('created_at_ms').execute();
  await db.schema.alterTable('card_designs').addColumn('idempotency_key', 'text').execute();
  await db.schema.createIndex('card_designs_idempotency_key').on('card_designs').columns(['partner_id', 'idempotency_key']).unique().execute();
}
