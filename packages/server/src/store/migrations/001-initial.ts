import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('signing_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_type', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull().unique())
    .addColumn('secret_kind', 'text', (c) => c.notNull())
    .addColumn('protection', 'text', (c) => c.notNull())
    .addColumn('kdf_salt', 'text', (c) => c.notNull())
    .addColumn('wrapped_data_key', 'text', (c) => c.notNull())
    .addColumn('encrypted_secret', 'text', (c) => c.notNull())
    .addColumn('pin_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('signing_keys_owner').on('signing_keys').columns(['owner_type', 'owner_id']).execute();

  await db.schema
    .createTable('partners')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('service_name', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('mint_limit', 'integer', (c) => c.notNull())
    .addColumn('mint_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('mint_period', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull().references('signing_keys.id'))
    .addColumn('main_address', 'text', (c) => c.notNull())
    .addColumn('contract_address', 'text')
    .addColumn('nft_id', 'integer')
    .addColumn('token_version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('birth', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull().references('signing_keys.id'))
    .addColumn('main_address', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('users_name_phone').on('users').columns(['phone', 'name']).execute();

  await db.schema
    .createTable('nft_contracts')
    .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) =>
      dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('symbol', 'text', (c) => c.notNull())
    .addColumn('deploy_outbox_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('nft_contracts_address').on('nft_contracts').columns(['chain', 'address']).execute();

  await db.schema
    .createTable('account_nonces')
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('next_nonce', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_nonces_pk', ['chain', 'address'])
    .execute();

  await db.schema
    .createTable('outbox_transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('idempotency_key', 'text', (c) => c.notNull().unique())
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('nonce', 'integer', (c) => c.notNull())
    .addColumn('to_address', 'text')
    .addColumn('value_wei', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('gas_limit', 'text', (c) => c.notNull())
    .addColumn('raw_tx', 'text', (c) => c.notNull())
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('receipt_status', 'text')
    .addColumn('block_number', 'bigint')
    .addColumn('block_hash', 'text')
    .addColumn('gas_used', 'text')
    .addColumn('contract_address', 'text')
    .addColumn('error', 'text')
    .addColumn('broadcast_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_broadcast_ms', 'bigint')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    // The invariant that makes a nonce impossible to reuse, whatever the process.
    .addUniqueConstraint('outbox_chain_from_nonce', ['chain', 'from_address', 'nonce'])
    .execute();
  await db.schema.createIndex('outbox_status').on('outbox_transactions').columns(['status', 'chain']).execute();
  await db.schema.createIndex('outbox_tx_hash').on('outbox_transactions').column('tx_hash').execute();

  await db.schema
    .createTable('service_settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}
