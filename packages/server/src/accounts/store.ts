import type { Db, DbTransaction } from '../store/database.ts';
import type { PartnerRow, UserRow } from '../store/schema.ts';

/** The two kinds of account the operator manages, by their table. */
export type AccountKind = 'partner' | 'member';
const TABLE = { partner: 'partners', member: 'users' } as const;
/**
 * Both tables have the columns queried here (id, email, phone, main_address, status, updated_at), so
 * queries are written once against the partners table's type; contract_address and mint_limit are
 * only used for partners.
 */
const table = (kind: AccountKind) => TABLE[kind] as 'partners';

export type AccountRow<K extends AccountKind> = K extends 'partner' ? PartnerRow : UserRow;

/**
 * Accounts whose e-mail or phone contains `search`, or whose address is it, in e-mail order, a
 * page of `limit` after the e-mail `cursor`.
 */
export async function searchAccounts<K extends AccountKind>(
  db: Db,
  kind: K,
  input: { search?: string; limit: number; cursor?: string },
): Promise<Array<AccountRow<K>>> {
  let query = db.selectFrom(table(kind)).selectAll().orderBy('email').limit(input.limit);
  const search = input.search?.trim().toLowerCase();
  if (search) {
    const pattern = `%${search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
    query = query.where((eb) =>
      eb.or([
        eb('email', 'like', pattern),
        eb('phone', 'like', pattern),
        eb('main_address', '=', search),
        ...(kind === 'partner' ? [eb('contract_address', '=', search)] : []),
      ]),
    );
  }
  if (input.cursor) query = query.where('email', '>', input.cursor);
  return (await query.execute()) as unknown as Array<AccountRow<K>>;
}

/** The account with this e-mail, phone (E.164) or main address. */
export async function findAccount<K extends AccountKind>(
  db: Db | DbTransaction,
  kind: K,
  by: { email?: string; phone?: string; address?: string },
): Promise<AccountRow<K> | undefined> {
  let query = db.selectFrom(table(kind)).selectAll();
  if (by.email !== undefined) query = query.where('email', '=', by.email.trim().toLowerCase());
  else if (by.phone !== undefined) query = query.where('phone', '=', by.phone);
  else if (by.address !== undefined) query = query.where('main_address', '=', by.address.trim().toLowerCase());
  else return undefined;
  return (await query.executeTakeFirst()) as unknown as AccountRow<K> | undefined;
}

/** Changes an account while it still holds `expected`; false (nothing changed) when it no longer does. */
export async function updateAccount(
  trx: DbTransaction,
  kind: AccountKind,
  id: string,
  expected: { status: number } | { mint_limit: number },
  changes: { status?: number; mint_limit?: number; updated_at: number },
): Promise<boolean> {
  let query = trx.updateTable(table(kind)).set(changes).where('id', '=', id);
  query = 'status' in expected ? query.where('status', '=', expected.status) : query.where('mint_limit', '=', expected.mint_limit);
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
