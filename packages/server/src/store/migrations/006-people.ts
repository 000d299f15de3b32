import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * Cards to people (src/people, src/messenger): wallets reserved for a name and phone until that
 * person signs up, who invited whom, the invite counters behind codes 4112, 4114 and 4115, and the
 * messages of the default (outbox) messenger.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('reserved_wallets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull().references('signing_keys.id'))
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('claimed_user_id', 'text')
    .addColumn('claimed_at', 'bigint')
    .execute();
  // One unclaimed wallet per person, whatever the number of processes reserving it at once.
  await db.schema
    .createIndex('reserved_wallets_unclaimed_person')
    .on('reserved_wallets')
    .columns(['phone', 'name'])
    .unique()
    .where(sql.ref('claimed_user_id'), 'is', null)
    .execute();

  await db.schema
    .createTable('person_invites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('reserved_wallet_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('sent_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('person_invites_partner_person')
    .on('person_invites')
    .columns(['partner_id', 'phone', 'name'])
    .unique()
    .execute();

  await db.schema
    .createTable('invite_counts')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('invite_counts_pk', ['kind', 'subject', 'period'])
    .execute();

  await db.schema
    .createTable('messenger_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('to_name', 'text', (c) => c.notNull())
    .addColumn('to_phone', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('messenger_messages_phone').on('messenger_messages').columns(['to_phone', 'created_at']).execute();
}
