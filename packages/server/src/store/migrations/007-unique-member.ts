import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * One member per person: name and phone together are unique among users. Sign-up checks it first
 * (412), but only this index stops two sign-ups of the same person that run at the same time in
 * two processes on PostgreSQL.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema.createIndex('users_person').on('users').columns(['phone', 'name']).unique().execute();
}
