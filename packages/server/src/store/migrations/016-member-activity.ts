import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * The wallet app's activity list: a member's App2App requests newest first, the card transfers
 * from or to an address, and the card sends an address signed (pending ones show before the index
 * has them).
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema.createIndex('a2a_requests_user').on('a2a_requests').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('indexed_card_transfers_from').on('indexed_card_transfers').columns(['from_address', 'block_number']).execute();
  await db.schema.createIndex('indexed_card_transfers_to').on('indexed_card_transfers').columns(['to_address', 'block_number']).execute();
  await db.schema.createIndex('outbox_from_address').on('outbox_transactions').columns(['from_address', 'created_ms']).execute();
}
