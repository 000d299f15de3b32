import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * Which attempt at a link's claim transaction is the current one (0 for the first). A claim whose
 * transaction could not go through (its nonce taken by another transaction, or reverted) while the
 * card is still in escrow under the link is sent again under the next attempt's key, so the link is
 * not held for good by a transaction that will never move the card.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .alterTable('escrow_claims')
    .addColumn('claim_attempt', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
}
