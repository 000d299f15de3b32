import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * What a PIN change leaves on its key to tell a repeat of the change from a wrong PIN
 * (custody/envelope.ts, pinChangeCheck): null until the key's PIN is changed.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema.alterTable('signing_keys').addColumn('pin_change_check', 'text').execute();
}
