import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/** App2App (Family B) requests, their policies and credentials, and wallet-app sessions. */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('a2a_requests')
    .addColumn('request_key', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('bapp_name', 'text', (c) => c.notNull())
    .addColumn('bapp_callback', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('estimated_gas', 'text')
    .addColumn('service_key_id', 'text')
    .addColumn('fee_credential_id', 'text')
    .addColumn('user_id', 'text')
    .addColumn('execution_id', 'text')
    .addColumn('result', 'text')
    .addColumn('error_code', 'integer')
    .addColumn('error_message', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expiration_time', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .addColumn('fee_advance_wei', 'text')
    .addColumn('fee_settled_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('a2a_requests_expiration').on('a2a_requests').column('expiration_time').execute();
  await db.schema
    .createIndex('a2a_requests_fee_settlement')
    .on('a2a_requests')
    .columns(['fee_credential_id', 'fee_settled_at'])
    .execute();

  await db.schema
    .createTable('a2a_service_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('lookup_hash', 'text', (c) => c.notNull().unique())
    .addColumn('ci_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();

  await db.schema
    .createTable('a2a_fee_credentials')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('lookup_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_id', 'text', (c) => c.notNull().references('signing_keys.id'))
    .addColumn('payer_address', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();

  await db.schema
    .createTable('a2a_blacklist')
    .addColumn('address', 'text', (c) => c.primaryKey())
    .addColumn('reason', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('a2a_daily_counts')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('a2a_daily_counts_pk', ['user_id', 'kind', 'day'])
    .execute();

  await db.schema
    .createTable('wallet_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('wallet_sessions_user').on('wallet_sessions').column('user_id').execute();
}
