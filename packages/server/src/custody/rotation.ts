import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../store/database.ts';
import type { StoreDialect } from '../store/migrations/index.ts';
import { masterKeyId } from './envelope.ts';
import type { KeyVault } from './key-vault.ts';
import { MasterKeyRing } from './master-key-ring.ts';
import {
  createNextMasterKey,
  loadMasterKey,
  MASTER_KEY_FILE,
  MasterKeyError,
  NEXT_MASTER_KEY_FILE,
  promoteNextMasterKey,
  readDataDirMasterKeys,
} from './master-key.ts';
import { findKeysNotUnder, finishRotation, readMasterKeyState, startRotation } from './store.ts';
import { moveClaimSecrets, moveWebhookSecrets } from './sealed-values.ts';

/** Keys re-wrapped per transaction: short write locks beside a running service. */
export const ROTATION_BATCH_SIZE = 100;

/** Where the master key comes from: WALLET_MASTER_KEY (config `masterKey`) or `<dataDir>/master.key`. */
export interface MasterKeySource {
  dataDir: string;
  masterKeyHex: string | null;
}

/**
 * Loads the master key and checks it is the store's: the one in force or the new key of a rotation
 * under way. Finishes what a rotation that crashed after its last store write left undone: the new
 * key still in master.key.next is moved to master.key; with WALLET_MASTER_KEY set to the new key, the
 * file is no longer needed and goes.
 */
export async function openMasterKeys(db: Db, source: MasterKeySource): Promise<MasterKeyRing> {
  let primary = await loadMasterKey(source);
  const { current, rotation } = await readMasterKeyState(db);
  const next = join(source.dataDir, NEXT_MASTER_KEY_FILE);
  if (current !== undefined && masterKeyId(primary) !== current && masterKeyId(primary) !== rotation?.to) {
    const nextKey = source.masterKeyHex === null ? (await readDataDirMasterKeys(source.dataDir)).find((key) => masterKeyId(key) === current) : undefined;
    if (!nextKey) throw wrongMasterKey(source);
    await promoteNextMasterKey(source.dataDir);
    primary = nextKey;
  } else if (source.masterKeyHex !== null && current === masterKeyId(primary) && !rotation) {
    await unlink(next).catch(() => undefined);
  }
  return new MasterKeyRing(primary, source.dataDir);
}

/** The master key given does not open this store's keys: starting would seal keys no one can open. */
export function wrongMasterKey(source: MasterKeySource): MasterKeyError {
  const from = source.masterKeyHex === null ? `${join(source.dataDir, MASTER_KEY_FILE)}` : 'WALLET_MASTER_KEY (config masterKey)';
  return new MasterKeyError(
    `the master key from ${from} is not the one this store's keys were sealed with; give the store's own master key (WALLET_MASTER_KEY, or its master.key file in the data directory)`,
  );
}

export interface RotationResult {
  from_master_key_id: string;
  master_key_id: string;
  rewrapped_keys: number;
  /** Webhook endpoints whose signing secrets were sealed again under the new key. */
  resealed_webhook_secrets: number;
  /** Claim secrets of escrow deposits under an Idempotency-Key sealed again under the new key. */
  resealed_claim_secrets: number;
  batches: number;
  resumed: boolean;
  /** Where the new key is now; with WALLET_MASTER_KEY, the key itself (printed once, never audited). */
  master_key_file: string;
  master_key?: string;
  next_step: string;
}

/**
 * `keys rotate-master`. A new master key is written to `<dataDir>/master.key.next` and its id
 * recorded in the store before any key changes, so a crash at any point leaves every key openable
 * (by the key its row names) and running the command again carries on. Keys move in batches, each
 * one transaction; a running service reads the new key from the data directory the first time it
 * meets a row wrapped under it and seals new keys under it from the start. Webhook signing secrets and
 * the claim secrets of keyed escrow deposits (sealed-values.ts) are sealed again the same way, after the keys. When no key is left under
 * the old one, the store records the new key as the one in force (a service given the old key is
 * refused from then on), and master.key is replaced by the new key; with WALLET_MASTER_KEY, the
 * operator sets it to the printed key and restarts.
 */
export async function rotateMasterKey(
  deps: { db: Db; dialect: StoreDialect; vault: KeyVault; source: MasterKeySource },
  options: { batchSize?: number; afterBatch?: (batches: number) => void } = {},
): Promise<RotationResult> {
  const { db, source } = deps;
  const state = await readMasterKeyState(db);
  if (state.current === undefined) throw new MasterKeyError('the store has no master key id recorded; start the service once first');
  let rotation = state.rotation;
  const resumed = rotation !== undefined;
  if (!rotation) {
    const key = await createNextMasterKey(source.dataDir);
    rotation = await startRotation(db, { from: state.current, to: masterKeyId(key), startedAtMs: Date.now() });
  }
  // Fails here, before anything moves, when the new key is not in the data directory.
  const newKey = await deps.vault.masterKey(rotation.to);
  let rewrapped = 0;
  let resealed = 0;
  let resealedClaims = 0;
  let batches = 0;
  const batchSize = options.batchSize ?? ROTATION_BATCH_SIZE;
  for (;;) {
    const rows = await findKeysNotUnder(db, rotation.to, batchSize);
    if (rows.length > 0) {
      rewrapped += await deps.vault.moveToMasterKey(rows, rotation.to);
    } else {
      // Then the webhook signing secrets and the claim secrets of keyed escrow deposits, sealed under the master key too.
      const secrets = await moveWebhookSecrets(deps, rotation.to, batchSize);
      const claims = secrets.found === 0 ? await moveClaimSecrets(deps, rotation.to, batchSize) : { found: 0, moved: 0 };
      if (secrets.found === 0 && claims.found === 0) {
        if (await finishRotation(db, deps.dialect, rotation.to)) break;
        continue;
      }
      resealed += secrets.moved;
      resealedClaims += claims.moved;
    }
    batches += 1;
    options.afterBatch?.(batches);
  }
  const fromFile = source.masterKeyHex === null;
  const nextPath = join(source.dataDir, NEXT_MASTER_KEY_FILE);
  // A run that crashed after this rename finds master.key.next gone; master.key is already the new key.
  if (fromFile) {
    await promoteNextMasterKey(source.dataDir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
  return {
    from_master_key_id: rotation.from,
    master_key_id: rotation.to,
    rewrapped_keys: rewrapped,
    resealed_webhook_secrets: resealed,
    resealed_claim_secrets: resealedClaims,
    batches,
    resumed,
    master_key_file: fromFile ? join(source.dataDir, MASTER_KEY_FILE) : nextPath,
    ...(fromFile ? {} : { master_key: Buffer.from(newKey).toString('hex') }),
    next_step: fromFile
      ? 'none: running services use the new key already; the old key opens nothing'
      : `set WALLET_MASTER_KEY to master_key and restart the service; it then deletes ${nextPath}`,
  };
}
