import type { Db } from '../store/database.ts';
import type { KeyOwnerType, SigningKeyRow } from '../store/schema.ts';

/** The columns a key is unsealed from, and its wrong-PIN count. */
export type SealedRow = Pick<
  SigningKeyRow,
  'owner_id' | 'address' | 'secret_kind' | 'protection' | 'kdf_salt' | 'wrapped_data_key' | 'encrypted_secret' | 'pin_failures'
>;

const SEALED_COLUMNS = [
  'owner_id',
  'address',
  'secret_kind',
  'protection',
  'kdf_salt',
  'wrapped_data_key',
  'encrypted_secret',
  'pin_failures',
] as const;

export async function insertSigningKey(db: Db, row: SigningKeyRow): Promise<void> {
  await db.insertInto('signing_keys').values(row).execute();
}

export async function findSealedKey(db: Db, keyId: string): Promise<SealedRow | undefined> {
  return db.selectFrom('signing_keys').select(SEALED_COLUMNS).where('id', '=', keyId).executeTakeFirst();
}

/** Sets the wrong-PIN count back to 0; whether the key exists. */
export async function clearPinFailures(db: Db, keyId: string, now?: number): Promise<boolean> {
  const result = await db
    .updateTable('signing_keys')
    .set({ pin_failures: 0, ...(now !== undefined ? { updated_at: now } : {}) })
    .where('id', '=', keyId)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/**
 * Replaces a key's wrapping (and its protection, when given), guarded by the wrapping it replaces
 * (and, when given, the protection it had): false when another change got there first.
 */
export async function replaceWrapping(
  db: Db,
  input: {
    keyId: string;
    old: { kdfSalt: string; wrappedDataKey: string; protection?: SigningKeyRow['protection'] };
    next: { kdfSalt: string; wrappedDataKey: string; protection?: SigningKeyRow['protection'] };
    now: number;
  },
): Promise<boolean> {
  let update = db
    .updateTable('signing_keys')
    .set({
      ...(input.next.protection ? { protection: input.next.protection } : {}),
      kdf_salt: input.next.kdfSalt,
      wrapped_data_key: input.next.wrappedDataKey,
      pin_failures: 0,
      updated_at: input.now,
    })
    .where('id', '=', input.keyId);
  if (input.old.protection) update = update.where('protection', '=', input.old.protection);
  const result = await update.where('kdf_salt', '=', input.old.kdfSalt).where('wrapped_data_key', '=', input.old.wrappedDataKey).executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function findPinFailures(db: Db, keyId: string): Promise<number | undefined> {
  const row = await db.selectFrom('signing_keys').select('pin_failures').where('id', '=', keyId).executeTakeFirst();
  return row ? Number(row.pin_failures) : undefined;
}

/** The (first) key of an owner. */
export async function findKeyOfOwner(db: Db, ownerType: KeyOwnerType, ownerId: string): Promise<{ id: string; address: string } | undefined> {
  return db
    .selectFrom('signing_keys')
    .select(['id', 'address'])
    .where('owner_type', '=', ownerType)
    .where('owner_id', '=', ownerId)
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
}

/**
 * Counts one PIN attempt unless the key is locked (MAX guard), in one statement; the sealed
 * material as of that moment, or undefined when locked.
 */
export async function countPinAttempt(db: Db, keyId: string, maxFailures: number): Promise<SealedRow | undefined> {
  return db
    .updateTable('signing_keys')
    .set((eb) => ({ pin_failures: eb('pin_failures', '+', 1) }))
    .where('id', '=', keyId)
    .where('pin_failures', '<', maxFailures)
    .returning(SEALED_COLUMNS)
    .executeTakeFirst();
}
