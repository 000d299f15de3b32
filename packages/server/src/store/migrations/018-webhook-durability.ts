import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * Webhooks made durable with what they tell of, and their secrets kept sealed (docs/webhooks.md):
 * - a message can be `held` until the transaction named by `outbox_key` (an outbox idempotency key)
 *   is final: stored in the transaction that stores the outbox row, released when it is mined;
 * - an endpoint's secret, and the previous one kept valid for a while after a rotation, are sealed
 *   under the master key named by `secret_master_key_id` (null: still in clear, sealed at start).
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema.alterTable('webhook_messages').addColumn('outbox_key', 'text').execute();
  await db.schema.createIndex('webhook_messages_outbox_key').on('webhook_messages').columns(['status', 'outbox_key']).execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret_until_ms', 'bigint').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('secret_master_key_id', 'text').execute();
}
