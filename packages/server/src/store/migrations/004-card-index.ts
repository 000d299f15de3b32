import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * The card index (src/card-index): cards and their owners as the chain's Transfer logs say, the
 * journal of those logs (what makes a rewind exact), per-owner counts, and the indexer's cursors.
 * Token ids and block numbers are `bigint` so keyset order is numeric on SQLite and PostgreSQL.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('indexed_cards')
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('contract', 'text', (c) => c.notNull())
    .addColumn('token_id', 'bigint', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('sender', 'text', (c) => c.notNull())
    .addColumn('mint_tx_hash', 'text')
    .addColumn('last_tx_hash', 'text', (c) => c.notNull())
    .addColumn('minted_at', 'bigint')
    .addColumn('minted_block', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_block', 'bigint', (c) => c.notNull())
    .addColumn('updated_log_index', 'integer', (c) => c.notNull())
    .addColumn('burned', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('indexed_cards_pk', ['chain', 'contract', 'token_id'])
    .execute();
  await db.schema
    .createIndex('indexed_cards_owner')
    .on('indexed_cards')
    .columns(['chain', 'owner', 'contract', 'token_id'])
    .execute();
  await db.schema
    .createIndex('indexed_cards_contract_owner')
    .on('indexed_cards')
    .columns(['chain', 'contract', 'owner', 'token_id'])
    .execute();

  await db.schema
    .createTable('indexed_card_transfers')
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('block_number', 'bigint', (c) => c.notNull())
    .addColumn('log_index', 'integer', (c) => c.notNull())
    .addColumn('contract', 'text', (c) => c.notNull())
    .addColumn('token_id', 'bigint', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('block_time', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('indexed_card_transfers_pk', ['chain', 'block_number', 'log_index'])
    .execute();
  await db.schema
    .createIndex('indexed_card_transfers_card')
    .on('indexed_card_transfers')
    .columns(['chain', 'contract', 'token_id', 'block_number', 'log_index'])
    .execute();

  await db.schema
    .createTable('indexed_card_holdings')
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('contract', 'text', (c) => c.notNull())
    .addColumn('card_count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('indexed_card_holdings_pk', ['chain', 'owner', 'contract'])
    .execute();

  await db.schema
    .createTable('card_index_cursors')
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('contract', 'text', (c) => c.notNull())
    .addColumn('last_block', 'bigint', (c) => c.notNull())
    .addColumn('last_block_hash', 'text')
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('card_index_cursors_pk', ['chain', 'contract'])
    .execute();

  await db.schema
    .createTable('card_index_blocks')
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('block_number', 'bigint', (c) => c.notNull())
    .addColumn('block_hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('card_index_blocks_pk', ['chain', 'block_number'])
    .execute();
}
