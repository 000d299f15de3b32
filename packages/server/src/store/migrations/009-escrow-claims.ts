import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * One row per card a partner put into escrow (A17): the claim link's id and the keccak256 hash of
 * its secret, never the secret itself, so the store alone cannot claim a card. Whether the card is
 * still in escrow is read from the escrow contract, not from here; the row records who claims it.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('escrow_claims')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('chain', 'text', (column) => column.notNull())
    .addColumn('escrow_address', 'text', (column) => column.notNull())
    .addColumn('nft_id', 'integer', (column) => column.notNull())
    .addColumn('contract', 'text', (column) => column.notNull())
    .addColumn('token_id', 'bigint', (column) => column.notNull())
    .addColumn('partner_id', 'text', (column) => column.notNull())
    .addColumn('depositor', 'text', (column) => column.notNull())
    .addColumn('claim_hash', 'text', (column) => column.notNull())
    .addColumn('deposit_key', 'text', (column) => column.notNull())
    .addColumn('claimed_by', 'text')
    .addColumn('claimed_to', 'text')
    .addColumn('created_ms', 'bigint', (column) => column.notNull())
    .addColumn('updated_ms', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('escrow_claims_card').on('escrow_claims').columns(['chain', 'contract', 'token_id']).execute();
  await db.schema.createIndex('escrow_claims_deposit').on('escrow_claims').column('deposit_key').execute();
}
