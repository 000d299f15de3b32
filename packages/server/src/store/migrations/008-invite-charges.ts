import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * The invite counters each invite was charged to, stored with the invite when its quota is taken
 * (JSON, null before). An invite left unsent by a call that was killed is taken over by a later
 * call, which gives these back before it takes its own, so a killed call costs no quota.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema.alterTable('person_invites').addColumn('quota_charges', 'text').execute();
}
