import { sql, type Kysely, type SqlBool } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * Reads whose cost grew with what the service has kept go along indexes
 * (`store/read-plans.test.ts` checks each read's plan). The wallet app's activity and request view
 * read in the order they page, so a page costs the same for a member with ten transfers and one
 * with a hundred thousand: before, an address's card transfers were all read and sorted for every
 * page, and its unfinished card sends were looked for among every transaction it ever signed; the
 * home page read every request a member opened for the few token sends among them. The
 * hourly purges read only what they purge: before, the claim secrets' wipe read every claim link
 * ever made, and the webhook messages' every finished message of the last 30 days.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  // An address's card transfers, newest first: one index a side, in the list's order.
  await db.schema.dropIndex('indexed_card_transfers_from').execute();
  await db.schema.dropIndex('indexed_card_transfers_to').execute();
  await db.schema.createIndex('card_transfers_from_time').on('indexed_card_transfers').columns(['from_address', 'block_time', 'tx_hash', 'log_index']).execute();
  await db.schema.createIndex('card_transfers_to_time').on('indexed_card_transfers').columns(['to_address', 'block_time', 'tx_hash', 'log_index']).execute();
  // An address's card sends not (yet) done: few at any time, so the index holds only them. Its
  // condition is written as the activity's query writes it (SQLite uses it only then).
  await db.schema
    .createIndex('outbox_unfinished_card_sends')
    .on('outbox_transactions')
    .columns(['from_address', 'created_ms', 'id'])
    .where(sql.raw<SqlBool>(`idempotency_key like '%card-send:%' and (status <> 'mined' or receipt_status <> 'success')`))
    .execute();
  // Whether a member ever sent to an address (the request view's "first time" fact): that pair,
  // not the member's whole history. The activity no longer reads by sender and time.
  await db.schema.dropIndex('outbox_from_address').execute();
  await db.schema.createIndex('outbox_from_to').on('outbox_transactions').columns(['from_address', 'to_address', 'chain']).execute();
  // The wallet app's home: the tokens a member sent (her completed send_token requests, a few of
  // all she opened; her token sends, each token once).
  await db.schema
    .createIndex('a2a_requests_token_sends')
    .on('a2a_requests')
    .columns(['user_id', 'created_at'])
    .where(sql.raw<SqlBool>(`type = 'send_token' and status = 'completed'`))
    .execute();
  await db.schema.createIndex('member_transfers_tokens').on('member_transfers').columns(['user_id', 'chain', 'token']).where(sql.ref('token'), 'is not', null).execute();
  // The hourly purges: the claim secrets still kept (a day's claim links), by age; finished webhook messages by age.
  await db.schema.createIndex('escrow_claims_kept_secrets').on('escrow_claims').column('created_ms').where(sql.ref('sealed_secret'), 'is not', null).execute();
  await db.schema.createIndex('webhook_messages_finished').on('webhook_messages').columns(['status', 'created_at_ms']).execute();
}
