import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * Webhook delivery without head-of-line blocking (docs/webhooks.md, "Order"):
 * - `webhook_messages.first_failed_at_ms`: when the message's first attempt failed; from then on it
 *   holds the endpoint's later messages only for `webhooks.holdLaterMessagesMs`, and retries on its
 *   own schedule. Messages already failing are given the time of their first failed attempt.
 * - `webhook_message_subjects`: what each message is about (`card:<chain>:<contract>:<card id>`,
 *   `invite:<id>`); a message waits for every older unfinished one of its endpoint about the same
 *   subject, however long that takes, so a card's events stay in order.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema.alterTable('webhook_messages').addColumn('first_failed_at_ms', 'bigint').execute();
  await sql`update webhook_messages set first_failed_at_ms = (select min(a.at_ms) from webhook_attempts a where a.message_id = webhook_messages.id and a.error is not null) where attempts > 0`.execute(db);
  await db.schema
    .createTable('webhook_message_subjects')
    .addColumn('message_id', 'text', (column) => column.notNull())
    .addColumn('endpoint_id', 'text', (column) => column.notNull())
    .addColumn('subject', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('webhook_message_subjects_pk', ['message_id', 'subject'])
    .execute();
  await db.schema.createIndex('webhook_message_subjects_endpoint').on('webhook_message_subjects').columns(['endpoint_id', 'subject', 'message_id']).execute();
}
