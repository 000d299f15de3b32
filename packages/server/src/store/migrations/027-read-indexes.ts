import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * Indexes for reads on request paths and frequent loops that read whole tables growing without
 * bound (`store/read-plans.test.ts` checks each read's plan). With no index, the wallet app's
 * activity read every claim link ever made for a member's claims: 17 ms a page on SQLite at 200,000
 * links, on the event loop's thread, against 0.1 ms with one.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  // The wallet app's activity: a member's claimed links, newest first; and who a counterparty is.
  await db.schema.createIndex('escrow_claims_member').on('escrow_claims').columns(['claimed_by', 'updated_ms', 'id']).execute();
  await db.schema.createIndex('users_main_address').on('users').column('main_address').execute();
  await db.schema.createIndex('reserved_wallets_address').on('reserved_wallets').column('address').execute();
  // The outbox's rewind watch reads a chain's mined rows above a height once a second, and its
  // check after a rewind pages them newest first: by status and chain alone, every mined row (38 ms
  // on SQLite at 200,000 mined rows, 43 on PostgreSQL; 0.06 and 0.4 with this).
  await db.schema.dropIndex('outbox_status').execute();
  await db.schema.createIndex('outbox_status_block').on('outbox_transactions').columns(['status', 'chain', 'block_number', 'id']).execute();
  // B1's purge of finished requests, once a minute.
  await db.schema.createIndex('a2a_requests_finished').on('a2a_requests').column('finished_at').execute();
  // A member's sign-up: the invites of her phone and name, and of a reserved wallet.
  await db.schema.createIndex('person_invites_person').on('person_invites').columns(['phone', 'name']).execute();
  await db.schema.createIndex('person_invites_wallet').on('person_invites').column('reserved_wallet_id').execute();
  // A partner's delivery log of one endpoint, newest first.
  await db.schema.createIndex('webhook_messages_endpoint').on('webhook_messages').columns(['endpoint_id', 'id']).execute();
}
