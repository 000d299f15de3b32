import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * The claim secret of a card put into escrow by an A17 call under an Idempotency-Key, sealed under
 * the master key named by `secret_master_key_id`, so a retry after the first call stopped can give
 * the same claim links. Kept only as long as the key (24 h); null for unkeyed calls and once wiped.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema.alterTable('escrow_claims').addColumn('sealed_secret', 'text').execute();
  await db.schema.alterTable('escrow_claims').addColumn('secret_master_key_id', 'text').execute();
}
