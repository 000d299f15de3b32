import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/**
 * One row per card that an operation (send, burn, escrow deposit or cancel) has claimed: the
 * primary key lets one insert win across every instance sharing the store. `operation` is the
 * outbox idempotency key of the transaction the claim guards, so a claim left behind by a crash is
 * taken over once that transaction is final, or after a short lease when it never got one
 * (cards/claims/store.ts). `card_id` is decimal text: another contract's token ids (App2App
 * `send_card`) can be any uint256.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  await db.schema
    .createTable('card_claims')
    .addColumn('chain', 'text', (column) => column.notNull())
    .addColumn('contract', 'text', (column) => column.notNull())
    .addColumn('card_id', 'text', (column) => column.notNull())
    .addColumn('operation', 'text', (column) => column.notNull())
    .addColumn('taken_ms', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('card_claims_pkey', ['chain', 'contract', 'card_id'])
    .execute();
}
