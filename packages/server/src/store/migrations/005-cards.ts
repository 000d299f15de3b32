import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * Minted cards (src/cards): the design of each mint (its metadata), the batches it was minted in
 * (one transaction each; their token id ranges map every card to its design), and the secure files
 * a design names (so the holder of such a card may fetch them).
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('card_designs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'text', (c) => c.notNull())
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('contract', 'text', (c) => c.notNull())
    .addColumn('nft_id', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('secure', 'text')
    .addColumn('sendable', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('card_mint_batches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('design_id', 'text', (c) => c.notNull().references('card_designs.id'))
    .addColumn('partner_id', 'text', (c) => c.notNull())
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('contract', 'text', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('recipients', 'text', (c) => c.notNull())
    .addColumn('card_count', 'integer', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('outbox_id', 'text')
    .addColumn('tx_hash', 'text')
    .addColumn('first_token_id', 'bigint')
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('card_mint_batches_tokens')
    .on('card_mint_batches')
    .columns(['chain', 'contract', 'first_token_id'])
    .execute();
  await db.schema.createIndex('card_mint_batches_status').on('card_mint_batches').columns(['status', 'created_at']).execute();
  await db.schema.createIndex('card_mint_batches_design').on('card_mint_batches').column('design_id').execute();

  await db.schema
    .createTable('card_secure_files')
    .addColumn('design_id', 'text', (c) => c.notNull().references('card_designs.id'))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('card_secure_files_pk', ['design_id', 'file_name'])
    .execute();
  await db.schema.createIndex('card_secure_files_name').on('card_secure_files').column('file_name').execute();
}
