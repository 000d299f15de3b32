import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * Partner webhooks (docs/webhooks.md): the endpoints a partner registers, the durable queue of
 * messages (one row per event and endpoint, delivered in order per endpoint, claimed with a lease
 * so two instances never deliver one at once) and the log of delivery attempts.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('partner_id', 'text', (column) => column.notNull())
    .addColumn('url', 'text', (column) => column.notNull())
    .addColumn('events', 'text', (column) => column.notNull())
    .addColumn('secret', 'text', (column) => column.notNull())
    .addColumn('created_at_ms', 'bigint', (column) => column.notNull())
    .addColumn('deleted_at_ms', 'bigint')
    .execute();
  await db.schema.createIndex('webhook_endpoints_partner').on('webhook_endpoints').columns(['partner_id', 'created_at_ms']).execute();
  await db.schema
    .createTable('webhook_messages')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('endpoint_id', 'text', (column) => column.notNull())
    .addColumn('partner_id', 'text', (column) => column.notNull())
    .addColumn('event_type', 'text', (column) => column.notNull())
    .addColumn('payload', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('attempts', 'integer', (column) => column.notNull())
    .addColumn('next_attempt_ms', 'bigint', (column) => column.notNull())
    .addColumn('lease_holder', 'text')
    .addColumn('lease_until_ms', 'bigint', (column) => column.notNull())
    .addColumn('created_at_ms', 'bigint', (column) => column.notNull())
    .addColumn('delivered_at_ms', 'bigint')
    .addColumn('event_key', 'text')
    .execute();
  // An event that can be reported twice (a repeated claim call) carries a key: queued once per endpoint.
  await db.schema.createIndex('webhook_messages_event_key').on('webhook_messages').columns(['endpoint_id', 'event_key']).unique().execute();
  // Ids sort in the order messages were made: the worker delivers each endpoint's oldest pending one.
  await db.schema.createIndex('webhook_messages_endpoint_status').on('webhook_messages').columns(['endpoint_id', 'status', 'id']).execute();
  await db.schema.createIndex('webhook_messages_due').on('webhook_messages').columns(['status', 'next_attempt_ms']).execute();
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('message_id', 'text', (column) => column.notNull())
    .addColumn('endpoint_id', 'text', (column) => column.notNull())
    .addColumn('at_ms', 'bigint', (column) => column.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('webhook_attempts_endpoint').on('webhook_attempts').columns(['endpoint_id', 'at_ms']).execute();
  await db.schema.createIndex('webhook_attempts_message').on('webhook_attempts').columns(['message_id', 'at_ms']).execute();
}
