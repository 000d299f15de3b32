import type { Db } from '../store/database.ts';

export async function readSetting(db: Db, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('service_settings').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/** Writes a setting unless it is set already; the value that stands. */
export async function writeSettingOnce(db: Db, key: string, value: string): Promise<string> {
  await db
    .insertInto('service_settings')
    .values({ key, value })
    .onConflict((conflict) => conflict.column('key').doNothing())
    .execute();
  return (await readSetting(db, key))!;
}

export async function deleteSigningKey(db: Db, keyId: string): Promise<void> {
  await db.deleteFrom('signing_keys').where('id', '=', keyId).execute();
}

export async function findSigningKey(db: Db, keyId: string): Promise<{ id: string; address: string }> {
  return db.selectFrom('signing_keys').select(['id', 'address']).where('id', '=', keyId).executeTakeFirstOrThrow();
}
