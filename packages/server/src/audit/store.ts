import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import type { Db, DbTransaction } from '../store/database.ts';

/** One operator action as the audit log keeps it. */
export interface OperatorAction {
  action: string;
  target: string;
  before: unknown;
  after: unknown;
}

export interface AuditEntry extends OperatorAction {
  id: string;
  at: string;
  actor: string;
}

/** Who runs operator commands: WALLET_OPERATOR when set (a shared account), else the system user. */
export function operatorName(env: NodeJS.ProcessEnv = process.env): string {
  if (env.WALLET_OPERATOR?.trim()) return env.WALLET_OPERATOR.trim();
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/** Records an action, in the transaction that makes the change, so the log and the change commit together. */
export async function recordOperatorAction(trx: Db | DbTransaction, actor: string, entry: OperatorAction): Promise<void> {
  await trx
    .insertInto('operator_audit')
    .values({
      id: randomUUID(),
      at_ms: Date.now(),
      actor,
      action: entry.action,
      target: entry.target,
      before_json: entry.before === undefined ? null : JSON.stringify(entry.before),
      after_json: entry.after === undefined ? null : JSON.stringify(entry.after),
    })
    .execute();
}

/** The newest actions first, `limit` a page; `cursor` is the last entry's id of the previous page. */
export async function listOperatorActions(db: Db, input: { limit: number; cursor?: string }): Promise<{ entries: AuditEntry[]; nextCursor: string }> {
  let query = db.selectFrom('operator_audit').selectAll().orderBy('at_ms', 'desc').orderBy('id', 'desc').limit(input.limit + 1);
  if (input.cursor) {
    const last = await db.selectFrom('operator_audit').select(['at_ms', 'id']).where('id', '=', input.cursor).executeTakeFirst();
    if (!last) return { entries: [], nextCursor: '' };
    query = query.where((eb) => eb.or([eb('at_ms', '<', last.at_ms), eb.and([eb('at_ms', '=', last.at_ms), eb('id', '<', last.id)])]));
  }
  const rows = await query.execute();
  const page = rows.slice(0, input.limit);
  return {
    entries: page.map((row) => ({
      id: row.id,
      at: new Date(Number(row.at_ms)).toISOString(),
      actor: row.actor,
      action: row.action,
      target: row.target,
      before: row.before_json === null ? null : JSON.parse(row.before_json),
      after: row.after_json === null ? null : JSON.parse(row.after_json),
    })),
    nextCursor: rows.length > input.limit ? page.at(-1)!.id : '',
  };
}
