import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * Which card contract a partner's collection was deployed as (`partner approve --card-contract`):
 * `indexed` (CardNFT, reads flat at any size) or `lean` (LeanCardNFT, cheaper mints, `balanceOf`
 * grows with the batches). Contracts deployed before this were all `indexed`.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .alterTable('nft_contracts')
    .addColumn('kind', 'text', (column) => column.notNull().defaultTo('indexed'))
    .execute();
}
