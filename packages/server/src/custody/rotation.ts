import { join } from 'node:path';
import type { Db } from '../store/database.ts';
import type { StoreDialect } from '../store/migrations/index.ts';
import { masterKeyId } from './envelope.ts';
import { INSTANCE_LIVE_MS } from './instances.ts';
import type { KeyVault } from './key-vault.ts';
import { MasterKeyRing } from './master-key-ring.ts';
import {
  createNextMasterKey,
  keepPreviousMasterKey,
  loadMasterKey,
  MASTER_KEY_FILE,
  MasterKeyError,
  masterKeyFilesIn,
  NEXT_MASTER_KEY_FILE,
  PREVIOUS_MASTER_KEY_FILE,
  promoteNextMasterKey,
  readMasterKeyFile,
  removeMasterKeyFiles,
} from './master-key.ts';
import {
  admitsMasterKey,
  endRollout,
  findKeysNotUnder,
  listServiceInstances,
  readMasterKeyState,
  recordNewKeyInForce,
  startRotation,
  type MasterKeyRotation,
  type ServiceInstanceRow,
} from './store.ts';
import { moveClaimSecrets, moveWebhookSecrets } from './sealed-values.ts';

/** Keys re-wrapped per transaction: short write locks beside a running service. */
export const ROTATION_BATCH_SIZE = 100;

/** Where the master key comes from: WALLET_MASTER_KEY (config `masterKey`) or `<dataDir>/master.key`. */
export interface MasterKeySource {
  dataDir: string;
  masterKeyHex: string | null;
}

/**
 * Loads the master key and checks the store admits it: the one in force, the new key of a rotation
 * whose keys are moving, or the old key of a rollout not yet finished (an instance restarted before
 * its turn), which then needs the new key in the data directory. Finishes what a rotation that
 * crashed after its last store write left undone: the new key still in master.key.next is moved to
 * master.key. Deletes no key file: only `keys finish-rotation` does, once no instance needs it.
 */
export async function openMasterKeys(db: Db, source: MasterKeySource): Promise<MasterKeyRing> {
  let primary = await loadMasterKey(source);
  const state = await readMasterKeyState(db);
  if (state.current !== undefined && masterKeyId(primary) !== state.current && masterKeyId(primary) !== state.rotation?.to) {
    const next = source.masterKeyHex === null ? await readMasterKeyFile(source.dataDir, NEXT_MASTER_KEY_FILE) : undefined;
    if (next && masterKeyId(next) === state.current) {
      await promoteNextMasterKey(source.dataDir);
      primary = next;
    } else if (!admitsMasterKey(state, masterKeyId(primary))) {
      throw wrongMasterKey(source);
    }
  }
  const ring = new MasterKeyRing(primary, source.dataDir);
  if (state.current !== undefined && ring.primaryId !== state.current) {
    // An instance on the old key of a rollout opens every row with the new key, from the data directory.
    await ring.get(state.current).catch((error: unknown) => {
      throw new MasterKeyError(
        `this process runs with the old master key of a rotation not finished, and the new key (${state.current}) is not in ${source.dataDir} (master.key, master.key.next); give it the new key`,
        { cause: error },
      );
    });
  }
  return ring;
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
 * `keys rotate-master`. A new master key is written to `<dataDir>/master.key.next`, the key in force
 * is kept as `<dataDir>/master.key.previous` (both 0600, synced), and the new key's id is recorded
 * in the store before any key changes, so a crash at any point leaves every key openable (by the key
 * its row names) and running the command again carries on. Keys move in batches, each one
 * transaction; a running service reads the new key from the data directory the first time it meets
 * a row wrapped under it and seals new keys under it from the start. Webhook signing secrets and the
 * claim secrets of keyed escrow deposits (sealed-values.ts) are sealed again the same way, after the
 * keys. When no key is left under the old one, the store records the new key as the one in force and
 * the rotation as a rollout, and master.key is replaced by the new key; with WALLET_MASTER_KEY, the
 * operator sets it to the printed key. Instances are then restarted one at a time; both keys' access
 * tokens are accepted until `keys finish-rotation` (finishRotation) retires the old key.
 */
export async function rotateMasterKey(
  deps: { db: Db; dialect: StoreDialect; vault: KeyVault; source: MasterKeySource },
  options: { batchSize?: number; afterBatch?: (batches: number) => void } = {},
): Promise<RotationResult> {
  const { db, source } = deps;
  const fromFile = source.masterKeyHex === null;
  const state = await readMasterKeyState(db);
  if (state.current === undefined) throw new MasterKeyError('the store has no master key id recorded; start the service once first');
  let rotation = state.rotation;
  if (!rotation && state.rollout) {
    // Its keys have all moved. A crash before master.key was replaced is finished here; anything else waits for finish-rotation.
    const next = fromFile ? await readMasterKeyFile(source.dataDir, NEXT_MASTER_KEY_FILE) : undefined;
    if (!next || masterKeyId(next) !== state.rollout.to) throw rolloutNotFinished(state.rollout);
    await promoteNextMasterKey(source.dataDir);
    return rotationResult(state.rollout, source, { rewrapped: 0, resealed: 0, resealedClaims: 0, batches: 0, resumed: true });
  }
  const resumed = rotation !== undefined;
  if (!rotation) {
    await keepPreviousMasterKey(source.dataDir, await deps.vault.masterKey(state.current));
    const key = await createNextMasterKey(source.dataDir);
    rotation = await startRotation(db, { from: state.current, to: masterKeyId(key), startedAtMs: Date.now() });
  } else if (!(await readMasterKeyFile(source.dataDir, PREVIOUS_MASTER_KEY_FILE))) {
    await keepPreviousMasterKey(source.dataDir, await deps.vault.masterKey(rotation.from));
  }
  // Fails here, before anything moves, when the new key is not in the data directory.
  await deps.vault.masterKey(rotation.to);
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
        if (await recordNewKeyInForce(db, deps.dialect, rotation)) break;
        continue;
      }
      resealed += secrets.moved;
      resealedClaims += claims.moved;
    }
    batches += 1;
    options.afterBatch?.(batches);
  }
  // A run that crashed after this rename finds master.key.next gone; master.key is already the new key.
  if (fromFile) {
    await promoteNextMasterKey(source.dataDir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
  return rotationResult(rotation, source, { rewrapped, resealed, resealedClaims, batches, resumed });
}

async function rotationResult(
  rotation: MasterKeyRotation,
  source: MasterKeySource,
  counts: { rewrapped: number; resealed: number; resealedClaims: number; batches: number; resumed: boolean },
): Promise<RotationResult> {
  const fromFile = source.masterKeyHex === null;
  const nextPath = join(source.dataDir, NEXT_MASTER_KEY_FILE);
  const newKey = fromFile ? undefined : await readMasterKeyFile(source.dataDir, NEXT_MASTER_KEY_FILE);
  return {
    from_master_key_id: rotation.from,
    master_key_id: rotation.to,
    rewrapped_keys: counts.rewrapped,
    resealed_webhook_secrets: counts.resealed,
    resealed_claim_secrets: counts.resealedClaims,
    batches: counts.batches,
    resumed: counts.resumed,
    master_key_file: fromFile ? join(source.dataDir, MASTER_KEY_FILE) : nextPath,
    ...(newKey ? { master_key: Buffer.from(newKey).toString('hex') } : {}),
    next_step: fromFile
      ? `restart the instances one at a time (they load the new master.key); when keys status shows none left on ${rotation.from}, run keys finish-rotation`
      : `set WALLET_MASTER_KEY to master_key and restart the instances one at a time; when keys status shows none left on ${rotation.from}, run keys finish-rotation with the new key (it deletes ${nextPath} and ${PREVIOUS_MASTER_KEY_FILE})`,
  };
}

function rolloutNotFinished(rollout: MasterKeyRotation): MasterKeyError {
  return new MasterKeyError(
    `the rotation to master key ${rollout.to} is not finished: restart every instance with the new key, then run keys finish-rotation (keys status shows which instances still run ${rollout.from})`,
  );
}

/** The outcome of `keys finish-rotation`. */
export interface FinishRotationResult {
  /** Whether this call retired a key (false: there was no rollout left to finish). */
  finished: boolean;
  master_key_id: string | undefined;
  retired_master_key_id: string | null;
  removed_files: string[];
  next_step: string;
}

/**
 * `keys finish-rotation`: retires the old key of a rollout, once its keys have all moved and no live
 * instance (store/instances) runs with it, and deletes master.key.next and master.key.previous.
 * Refused (MasterKeyError, nothing changed) while keys are still moving, while an instance seen within
 * INSTANCE_LIVE_MS runs another key than the new one (each named), and when this process itself was
 * given the old key (so the new key is known to the operator before its file goes). From then on a
 * token signed under the old key is refused everywhere and a process given the old key does not start.
 */
export async function finishRotation(
  deps: { db: Db; dialect: StoreDialect; source: MasterKeySource; masterKeyId: string },
  now: number = Date.now(),
): Promise<FinishRotationResult> {
  const state = await readMasterKeyState(deps.db);
  if (state.rotation) {
    throw new MasterKeyError(`the keys of the rotation to master key ${state.rotation.to} are still moving: run keys rotate-master again to finish moving them, then restart the instances`);
  }
  const rolloutFiles = [NEXT_MASTER_KEY_FILE, PREVIOUS_MASTER_KEY_FILE];
  if (!state.rollout) {
    // Files a finish that crashed before deleting them left behind.
    const removed = await removeMasterKeyFiles(deps.source.dataDir, rolloutFiles);
    return { finished: false, master_key_id: state.current, retired_master_key_id: null, removed_files: removed, next_step: 'none: no rotation to finish' };
  }
  const { rollout } = state;
  if (deps.masterKeyId !== rollout.to) {
    throw new MasterKeyError(
      `this command was given the old master key (${deps.masterKeyId}); run it with the new one (${rollout.to}: master.key, or WALLET_MASTER_KEY set to the key keys rotate-master printed)`,
    );
  }
  const { ended, holdouts } = await endRollout(deps.db, deps.dialect, rollout, now - INSTANCE_LIVE_MS);
  if (holdouts.length > 0) {
    const named = holdouts.map((row) => `${row.host} pid ${row.pid} (${row.master_key_id}, seen ${Math.max(0, Math.round((now - row.seen_at_ms) / 1000))} s ago)`).join(', ');
    throw new MasterKeyError(`${holdouts.length} instance(s) still run with the old master key: ${named}; restart them with the new key (${rollout.to}) and run keys finish-rotation again`);
  }
  const removed = await removeMasterKeyFiles(deps.source.dataDir, rolloutFiles);
  return {
    finished: ended,
    master_key_id: rollout.to,
    retired_master_key_id: rollout.from,
    removed_files: removed,
    next_step: `none: only ${rollout.to} opens the store and signs access tokens; tokens signed under ${rollout.from} are refused (partners sign in again)`,
  };
}

/** One serving instance as `keys status` shows it. */
export interface InstanceStatus {
  id: string;
  host: string;
  pid: number;
  master_key_id: string;
  started_at: string;
  seen_seconds_ago: number;
  /** Seen within INSTANCE_LIVE_MS; an instance that stopped without its clean shutdown stops being live after that. */
  live: boolean;
}

/** `keys status`: the key in force, a rotation or rollout under way, the live instances and the key each runs with, the key files. */
export async function masterKeyStatus(deps: { db: Db; dataDir: string }, now: number = Date.now()) {
  const state = await readMasterKeyState(deps.db);
  const instances = (await listServiceInstances(deps.db)).map((row) => instanceStatus(row, now));
  const stage = state.rotation ? 'moving keys' : state.rollout ? 'rollout' : 'none';
  const step = state.rotation ?? state.rollout;
  const onOldKey = step ? instances.filter((instance) => instance.live && instance.master_key_id !== step.to) : [];
  return {
    master_key_id: state.current ?? null,
    rotation: step ? { stage, from_master_key_id: step.from, master_key_id: step.to } : null,
    instances,
    key_files: await masterKeyFilesIn(deps.dataDir),
    next_step:
      stage === 'moving keys'
        ? 'run keys rotate-master again: it carries on moving keys'
        : stage === 'rollout'
          ? onOldKey.length > 0
            ? `restart ${onOldKey.length} instance(s) still on ${step!.from} with the new key, one at a time; then run keys finish-rotation`
            : 'every live instance runs the new key: run keys finish-rotation'
          : 'none',
  };
}

function instanceStatus(row: ServiceInstanceRow, now: number): InstanceStatus {
  return {
    id: row.id,
    host: row.host,
    pid: row.pid,
    master_key_id: row.master_key_id,
    started_at: new Date(row.started_at_ms).toISOString(),
    seen_seconds_ago: Math.max(0, Math.round((now - row.seen_at_ms) / 1000)),
    live: row.seen_at_ms >= now - INSTANCE_LIVE_MS,
  };
}
