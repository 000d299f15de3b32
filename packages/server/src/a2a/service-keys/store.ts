import type { Db } from '../../store/database.ts';
import type { Insertable } from 'kysely';
import type { A2aServiceKeyTable } from '../../store/schema.ts';

export async function insertServiceKey(db: Db, row: Insertable<A2aServiceKeyTable>): Promise<void> {
  await db.insertInto('a2a_service_keys').values(row).execute();
}

/** The id of the unrevoked service key with this lookup hash, or undefined. */
export async function findServiceKeyIdByHash(db: Db, lookupHash: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('a2a_service_keys')
    .select('id')
    .where('lookup_hash', '=', lookupHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row?.id;
}

/** The stored ci_key (hex) of the service key with this id, or undefined when it is gone. */
export async function findCiKey(db: Db, serviceKeyId: string): Promise<string | undefined> {
  const row = await db.selectFrom('a2a_service_keys').select('ci_key').where('id', '=', serviceKeyId).executeTakeFirst();
  return row?.ci_key;
}
