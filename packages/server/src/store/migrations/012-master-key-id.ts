import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * Which master key wraps each signing key (`keys rotate-master`): the key's public id, or null for
 * the key the store was sealed with before its first rotation.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema.alterTable('signing_keys').addColumn('master_key_id', 'text').execute();
  await db.schema.createIndex('signing_keys_master_key').on('signing_keys').columns(['master_key_id', 'id']).execute();
}
