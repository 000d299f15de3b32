import { sql } from 'kysely';
import type { Db } from '../store/database.ts';

/** When each of these scopes may try again (epoch ms; 0 or past: now). */
export async function blockedUntilOf(db: Db, scopes: readonly string[]): Promise<number[]> {
  const rows = await db.selectFrom('sign_in_failures').select('blocked_until_ms').where('scope', 'in', scopes).execute();
  return rows.map((row) => Number(row.blocked_until_ms));
}

export async function clearFailures(db: Db, scopes: readonly string[]): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('scope', 'in', scopes).execute();
}

/** Failures of a scope counted since `windowStart` (0 when its last one is older). */
export async function failuresOf(db: Db, scope: string, windowStart: number): Promise<number> {
  const row = await db.selectFrom('sign_in_failures').select(['failures', 'last_failure_ms']).where('scope', '=', scope).executeTakeFirst();
  return row && Number(row.last_failure_ms) >= windowStart ? Number(row.failures) : 0;
}

/**
 * Counts one failure of a scope in one atomic upsert, so concurrent failures in any number of
 * processes are all counted; a count last touched before `windowStart` starts again. The count now.
 */
export async function countFailure(db: Db, scope: string, nowMs: number, windowStart: number): Promise<number> {
  const row = await db
    .insertInto('sign_in_failures')
    .values({ scope, failures: 1, last_failure_ms: nowMs, blocked_until_ms: 0 })
    .onConflict((conflict) =>
      conflict.column('scope').doUpdateSet({
        failures: sql<number>`case when sign_in_failures.last_failure_ms < ${windowStart} then 1 else sign_in_failures.failures + 1 end`,
        blocked_until_ms: sql<number>`case when sign_in_failures.last_failure_ms < ${windowStart} then 0 else sign_in_failures.blocked_until_ms end`,
        last_failure_ms: nowMs,
      }),
    )
    .returning(['failures'])
    .executeTakeFirstOrThrow();
  return Number(row.failures);
}

/** Blocks a scope until `until`, unless it is blocked longer already (the wait only grows). */
export async function extendBlock(db: Db, scope: string, until: number): Promise<void> {
  await db
    .updateTable('sign_in_failures')
    .set({ blocked_until_ms: sql<number>`case when blocked_until_ms < ${until} then ${until} else blocked_until_ms end` })
    .where('scope', '=', scope)
    .execute();
}
