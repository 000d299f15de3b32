import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * What the wallet app's sign-up, sessions and home need:
 * - `users.ci`: the identity check's connecting information (one member per ci, 430);
 * - `users.bitcoin_address` … `xrpl_address`: the member's non-EVM addresses, derived from the
 *   phrase while the PIN is at hand (sign-up, or when the member shows them), so that the home
 *   screen lists them without asking for the PIN again;
 * - `person_invites.used_at`: when the invited person signed up and took the reserved wallet;
 * - `wallet_sessions.user_agent`: what the session list shows of each session.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema.alterTable('users').addColumn('ci', 'text').execute();
  for (const column of ['bitcoin_address', 'solana_address', 'tron_address', 'xrpl_address']) {
    await db.schema.alterTable('users').addColumn(column, 'text').execute();
  }
  await db.schema.createIndex('users_ci').on('users').column('ci').unique().execute();
  await db.schema.alterTable('person_invites').addColumn('used_at', 'bigint').execute();
  await db.schema.alterTable('wallet_sessions').addColumn('user_agent', 'text').execute();
}
