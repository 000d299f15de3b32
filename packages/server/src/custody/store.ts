import { sql } from 'kysely';
import type { Db, DbTransaction } from '../store/database.ts';
import { preparedQuery } from '../store/prepared-query.ts';
import type { KeyOwnerType, ServiceInstanceTable, SigningKeyRow } from '../store/schema.ts';

/** The columns a key is unsealed from, and its wrong-PIN count. */
export type SealedRow = Pick<
  SigningKeyRow,
  'owner_id' | 'address' | 'secret_kind' | 'protection' | 'kdf_salt' | 'wrapped_data_key' | 'encrypted_secret' | 'pin_failures' | 'master_key_id' | 'pin_change_check'
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
  'master_key_id',
  'pin_change_check',
] as const;

export async function insertSigningKey(db: Db, row: SigningKeyRow): Promise<void> {
  await db.insertInto('signing_keys').values(row).execute();
}

export async function findSealedKey(db: Db, keyId: string): Promise<SealedRow | undefined> {
  return (await sealedKeyQuery(db, { keyId })).rows[0];
}
// Every signing with a PIN reads its key.
const sealedKeyQuery = preparedQuery({ keyId: true }, (db, { keyId }: { keyId: string }) => db.selectFrom('signing_keys').select(SEALED_COLUMNS).where('id', '=', keyId));

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
    /** pinChangeCheck: what a PIN change leaves (custody/envelope.ts); any other change of the wrapping leaves none. */
    next: { kdfSalt: string; wrappedDataKey: string; protection?: SigningKeyRow['protection']; masterKeyId: string; pinChangeCheck?: string };
    now: number;
    /** A PIN change clears the wrong-PIN count; a master key rotation must not. */
    keepPinFailures?: boolean;
  },
): Promise<boolean> {
  let update = db
    .updateTable('signing_keys')
    .set({
      ...(input.next.protection ? { protection: input.next.protection } : {}),
      master_key_id: input.next.masterKeyId,
      kdf_salt: input.next.kdfSalt,
      wrapped_data_key: input.next.wrappedDataKey,
      pin_change_check: input.next.pinChangeCheck ?? null,
      ...(input.keepPinFailures ? {} : { pin_failures: 0 }),
      updated_at: input.now,
    })
    .where('id', '=', input.keyId);
  if (input.old.protection) update = update.where('protection', '=', input.old.protection);
  const result = await update.where('kdf_salt', '=', input.old.kdfSalt).where('wrapped_data_key', '=', input.old.wrappedDataKey).executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** What a master key rotation moves of a key. */
export type KeyWrapping = Pick<SigningKeyRow, 'id' | 'protection' | 'kdf_salt' | 'wrapped_data_key' | 'master_key_id'>;

export async function findKeyWrapping(db: Db, keyId: string): Promise<KeyWrapping | undefined> {
  return db.selectFrom('signing_keys').select(['id', 'protection', 'kdf_salt', 'wrapped_data_key', 'master_key_id']).where('id', '=', keyId).executeTakeFirst();
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

/** Takes back one counted attempt that turned out to be no guess (a repeat of a PIN change that landed). */
export async function uncountPinAttempt(db: Db, keyId: string): Promise<void> {
  await db
    .updateTable('signing_keys')
    .set((eb) => ({ pin_failures: eb('pin_failures', '-', 1) }))
    .where('id', '=', keyId)
    .where('pin_failures', '>', 0)
    .execute();
}

/**
 * Settings of the master key: the id of the key in force, the rotation whose keys are still moving,
 * and the rollout that follows it until `keys finish-rotation` (JSON).
 */
const MASTER_KEY_ID_SETTING = 'master_key_id';
const ROTATION_SETTING = 'master_key_rotation';
const ROLLOUT_SETTING = 'master_key_rollout';

/** A master key rotation under way: from which key to which (ids), since when. */
export interface MasterKeyRotation {
  from: string;
  to: string;
  startedAtMs: number;
}

/**
 * A rotation whose keys have all moved (`to` is in force) while instances may still run with `from`:
 * both keys are accepted for access tokens until `keys finish-rotation` retires `from`.
 */
export type MasterKeyRollout = MasterKeyRotation;

export interface MasterKeyState {
  current: string | undefined;
  rotation: MasterKeyRotation | undefined;
  rollout: MasterKeyRollout | undefined;
}

export async function readMasterKeyState(db: Db | DbTransaction): Promise<MasterKeyState> {
  const rows = await db.selectFrom('service_settings').select(['key', 'value']).where('key', 'in', [MASTER_KEY_ID_SETTING, ROTATION_SETTING, ROLLOUT_SETTING]).execute();
  const value = (key: string) => rows.find((row) => row.key === key)?.value;
  const parsed = (key: string) => {
    const text = value(key);
    return text ? (JSON.parse(text) as MasterKeyRotation) : undefined;
  };
  return { current: value(MASTER_KEY_ID_SETTING), rotation: parsed(ROTATION_SETTING), rollout: parsed(ROLLOUT_SETTING) };
}

/**
 * Whether a process may run with the master key `id`: the key in force, the new key of a rotation
 * whose keys are moving, or the old key of a rollout not yet finished.
 */
export function admitsMasterKey(state: MasterKeyState, id: string): boolean {
  return state.current === undefined || id === state.current || id === state.rotation?.to || id === state.rollout?.from;
}

/** The master keys access tokens are accepted under besides an instance's own: both keys of a rotation or rollout under way. */
export function keysOfRotation(state: MasterKeyState): string[] {
  return [state.rotation, state.rollout].flatMap((step) => (step ? [step.from, step.to] : []));
}

/**
 * Records the id of the master key in force when none is recorded yet (a store from before
 * rotations), and tags the keys wrapped before tags existed with it. The id that stands.
 */
export async function recordMasterKeyId(db: Db, id: string): Promise<string> {
  await db.insertInto('service_settings').values({ key: MASTER_KEY_ID_SETTING, value: id }).onConflict((conflict) => conflict.column('key').doNothing()).execute();
  const { current } = await readMasterKeyState(db);
  await db.updateTable('signing_keys').set({ master_key_id: current! }).where('master_key_id', 'is', null).execute();
  return current!;
}

/** Records a rotation unless one is recorded already; the rotation that stands. */
export async function startRotation(db: Db, rotation: MasterKeyRotation): Promise<MasterKeyRotation> {
  await db.insertInto('service_settings').values({ key: ROTATION_SETTING, value: JSON.stringify(rotation) }).onConflict((conflict) => conflict.column('key').doNothing()).execute();
  return (await readMasterKeyState(db)).rotation!;
}

/** The next keys not yet wrapped under `masterKeyId`, in id order. */
export async function findKeysNotUnder(db: Db, masterKeyId: string, limit: number): Promise<KeyWrapping[]> {
  return db
    .selectFrom('signing_keys')
    .select(['id', 'protection', 'kdf_salt', 'wrapped_data_key', 'master_key_id'])
    .where((eb) => eb.or([eb('master_key_id', 'is', null), eb('master_key_id', '!=', masterKeyId)]))
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Ends the moving of keys: in one transaction, unless a key (or a webhook secret) is still wrapped under another key, the new key
 * becomes the one in force and the rotation becomes a rollout (its old key is still accepted until
 * `keys finish-rotation`). On PostgreSQL the table is locked first so a key written by a
 * transaction still open is counted. Whether it ended.
 */
export async function recordNewKeyInForce(db: Db, dialect: 'sqlite' | 'postgres', rotation: MasterKeyRotation): Promise<boolean> {
  const { to } = rotation;
  return db.transaction().execute(async (trx) => {
    // The write first: SQLite takes its write lock, so no key can be written meanwhile.
    await trx.updateTable('service_settings').set({ value: to }).where('key', '=', MASTER_KEY_ID_SETTING).execute();
    if (dialect === 'postgres') await sql`lock table signing_keys, webhook_endpoints, escrow_claims in share mode`.execute(trx);
    const left = await trx
      .selectFrom('signing_keys')
      .select('id')
      .where((eb) => eb.or([eb('master_key_id', 'is', null), eb('master_key_id', '!=', to)]))
      .limit(1)
      .executeTakeFirst();
    // Webhook secrets are sealed under the master key too (custody/sealed-values.ts).
    const secretLeft = await trx
      .selectFrom('webhook_endpoints')
      .select('id')
      .where((eb) => eb.or([eb('secret_master_key_id', 'is', null), eb('secret_master_key_id', '!=', to)]))
      .limit(1)
      .executeTakeFirst();
    // So are the claim secrets of keyed escrow deposits, while they are kept.
    const claimSecretLeft = await trx
      .selectFrom('escrow_claims')
      .select('id')
      .where('sealed_secret', 'is not', null)
      .where((eb) => eb.or([eb('secret_master_key_id', 'is', null), eb('secret_master_key_id', '!=', to)]))
      .limit(1)
      .executeTakeFirst();
    if (left || secretLeft || claimSecretLeft) throw new RotationNotDone();
    await trx.deleteFrom('service_settings').where('key', '=', ROTATION_SETTING).execute();
    await trx.insertInto('service_settings').values({ key: ROLLOUT_SETTING, value: JSON.stringify(rotation) }).onConflict((conflict) => conflict.column('key').doUpdateSet({ value: JSON.stringify(rotation) })).execute();
    return true;
  }).catch((error: unknown) => {
    if (error instanceof RotationNotDone) return false;
    throw error;
  });
}

class RotationNotDone extends Error {}

/** An endpoint's webhook signing secrets as stored: sealed under `secret_master_key_id`, or in clear when it is null. */
export interface StoredWebhookSecrets {
  id: string;
  secret: string;
  previous_secret: string | null;
  secret_master_key_id: string | null;
}

/**
 * The next webhook endpoints whose secrets are not sealed under `masterKeyId` (those in clear
 * included), in id order; with null, only those in clear.
 */
export function findWebhookSecretsNotUnder(db: Db, masterKeyId: string | null, limit: number): Promise<StoredWebhookSecrets[]> {
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'secret', 'previous_secret', 'secret_master_key_id'])
    .where((eb) => (masterKeyId === null ? eb('secret_master_key_id', 'is', null) : eb.or([eb('secret_master_key_id', 'is', null), eb('secret_master_key_id', '!=', masterKeyId)])))
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Writes an endpoint's secrets sealed anew, unless they changed since they were read (a rotation of the secret meanwhile). Whether it wrote. */
export async function replaceWebhookSecrets(db: Db, old: StoredWebhookSecrets, next: Omit<StoredWebhookSecrets, 'id'>): Promise<boolean> {
  const updated = await db
    .updateTable('webhook_endpoints')
    .set(next)
    .where('id', '=', old.id)
    .where('secret', '=', old.secret)
    .where((eb) => (old.secret_master_key_id === null ? eb('secret_master_key_id', 'is', null) : eb('secret_master_key_id', '=', old.secret_master_key_id)))
    .executeTakeFirst();
  return updated.numUpdatedRows === 1n;
}

/** A claim secret of a keyed escrow deposit, sealed (escrow_claims.sealed_secret). */
export interface StoredClaimSecret {
  id: string;
  sealed_secret: string;
  secret_master_key_id: string;
}

/** The next escrow claims whose secret is sealed under another master key than `masterKeyId`, in id order. */
export async function findClaimSecretsNotUnder(db: Db, masterKeyId: string, limit: number): Promise<StoredClaimSecret[]> {
  const rows = await db
    .selectFrom('escrow_claims')
    .select(['id', 'sealed_secret', 'secret_master_key_id'])
    .where('sealed_secret', 'is not', null)
    .where('secret_master_key_id', '!=', masterKeyId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows as StoredClaimSecret[];
}

/** Writes a claim secret sealed anew, unless it was wiped or moved since it was read. Whether it wrote. */
export async function replaceClaimSecret(db: Db, old: StoredClaimSecret, next: Omit<StoredClaimSecret, 'id'>): Promise<boolean> {
  const updated = await db
    .updateTable('escrow_claims')
    .set(next)
    .where('id', '=', old.id)
    .where('sealed_secret', '=', old.sealed_secret)
    .where('secret_master_key_id', '=', old.secret_master_key_id)
    .executeTakeFirst();
  return updated.numUpdatedRows === 1n;
}

/** Wipes the sealed claim secrets stored before `beforeMs` (their Idempotency-Key is forgotten by then). How many. */
export async function wipeClaimSecretsBefore(db: Db, beforeMs: number): Promise<number> {
  const updated = await db
    .updateTable('escrow_claims')
    .set({ sealed_secret: null, secret_master_key_id: null })
    .where('sealed_secret', 'is not', null)
    .where('created_ms', '<', beforeMs)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows);
}

/** A serving instance as its row shows it (migration 023). */
export type ServiceInstanceRow = ServiceInstanceTable;

/** The instances, oldest first. */
export async function listServiceInstances(db: Db): Promise<ServiceInstanceRow[]> {
  const rows = await db.selectFrom('service_instances').selectAll().orderBy('started_at_ms').orderBy('id').execute();
  return rows.map((row) => ({ ...row, pid: Number(row.pid), started_at_ms: Number(row.started_at_ms), seen_at_ms: Number(row.seen_at_ms) }));
}

/**
 * Writes an instance's row (a start or a heartbeat) and reads the master key state in the same
 * transaction, the write first: it waits for an `endRollout` under way (its table lock on
 * PostgreSQL, the write lock on SQLite), so an instance on a key that rollout retires sees it
 * retired, and a rollout ending after the write sees the instance. The state, read after the write.
 */
export async function recordServiceInstance(db: Db, row: ServiceInstanceRow): Promise<MasterKeyState> {
  return db.transaction().execute(async (trx) => {
    await trx
      .insertInto('service_instances')
      .values(row)
      .onConflict((conflict) => conflict.column('id').doUpdateSet({ master_key_id: row.master_key_id, seen_at_ms: row.seen_at_ms }))
      .execute();
    return readMasterKeyState(trx);
  });
}

export async function deleteServiceInstance(db: Db, id: string): Promise<void> {
  await db.deleteFrom('service_instances').where('id', '=', id).execute();
}

/**
 * Retires a rollout's old key: in one transaction, unless an instance seen since `liveSinceMs` runs
 * with another key than the new one, the rollout record goes (from then on only the new key is
 * accepted, and a process given the old key is refused). On PostgreSQL the instances' table is
 * locked first, so an instance starting meanwhile waits and then finds the rollout over.
 * The live instances on another key, none when it ended.
 */
export async function endRollout(db: Db, dialect: 'sqlite' | 'postgres', rollout: MasterKeyRollout, liveSinceMs: number): Promise<{ ended: boolean; holdouts: ServiceInstanceRow[] }> {
  return db.transaction().execute(async (trx) => {
    // The write first: SQLite takes its write lock, so no instance row can be written meanwhile.
    const deleted = await trx.deleteFrom('service_settings').where('key', '=', ROLLOUT_SETTING).where('value', '=', JSON.stringify(rollout)).executeTakeFirst();
    if (dialect === 'postgres') await sql`lock table service_instances in exclusive mode`.execute(trx);
    const holdouts = await trx.selectFrom('service_instances').selectAll().where('seen_at_ms', '>=', liveSinceMs).where('master_key_id', '!=', rollout.to).orderBy('started_at_ms').execute();
    if (holdouts.length > 0) throw new RolloutHeldBack(holdouts.map((row) => ({ ...row, pid: Number(row.pid), started_at_ms: Number(row.started_at_ms), seen_at_ms: Number(row.seen_at_ms) })));
    return { ended: deleted.numDeletedRows === 1n, holdouts: [] };
  }).catch((error: unknown) => {
    if (error instanceof RolloutHeldBack) return { ended: false, holdouts: error.holdouts };
    throw error;
  });
}

class RolloutHeldBack extends Error {
  constructor(readonly holdouts: ServiceInstanceRow[]) {
    super('instances still run with the old master key');
  }
}
