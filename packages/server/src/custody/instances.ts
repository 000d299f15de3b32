import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from '../store/database.ts';
import { MasterKeyError } from './master-key.ts';
import { admitsMasterKey, deleteServiceInstance, recordServiceInstance, type ServiceInstanceRow } from './store.ts';

/** How often a serving instance writes its row (service_instances, migration 023). */
export const INSTANCE_HEARTBEAT_MS = 10_000;
/**
 * An instance not seen for this long counts as gone (one that stopped without its clean shutdown):
 * six missed heartbeats, so a busy instance or a few seconds of clock skew between hosts is no gap.
 */
export const INSTANCE_LIVE_MS = 60_000;

export interface InstanceHeartbeat {
  readonly id: string;
  /** Stops the heartbeat and deletes the row (a clean shutdown). */
  stop(): Promise<void>;
}

/**
 * Records this serving instance and the master key it runs with, then again every
 * INSTANCE_HEARTBEAT_MS, so `keys status` shows which instance holds which key and `keys
 * finish-rotation` retires a rotation's old key only once no live instance runs with it. The first
 * write is checked against the store in its transaction (store.ts recordServiceInstance): an instance
 * whose key was retired meanwhile is refused (MasterKeyError) and leaves no row.
 */
export async function startInstanceHeartbeat(
  deps: { db: Db; masterKeyId: string; log: { error(message: string): void } },
  options: { intervalMs?: number; now?: () => number } = {},
): Promise<InstanceHeartbeat> {
  const now = options.now ?? Date.now;
  const started = now();
  const row: ServiceInstanceRow = { id: randomUUID(), host: hostname(), pid: process.pid, master_key_id: deps.masterKeyId, started_at_ms: started, seen_at_ms: started };
  if (!admitsMasterKey(await recordServiceInstance(deps.db, row), deps.masterKeyId)) {
    await deleteServiceInstance(deps.db, row.id);
    throw new MasterKeyError(`the master key ${deps.masterKeyId} was retired by keys finish-rotation while this instance started; start it with the key in force`);
  }
  let warned = false;
  let beating: Promise<void> = Promise.resolve();
  const beat = async () => {
    const state = await recordServiceInstance(deps.db, { ...row, seen_at_ms: now() });
    if (!admitsMasterKey(state, deps.masterKeyId) && !warned) {
      warned = true;
      deps.log.error(`this instance runs with the retired master key ${deps.masterKeyId}: restart it with the key in force (${state.current})`);
    }
  };
  const timer = setInterval(() => {
    beating = beating.then(beat).catch((error: Error) => deps.log.error(`instance heartbeat: ${error.message}`));
  }, options.intervalMs ?? INSTANCE_HEARTBEAT_MS);
  timer.unref();
  return {
    id: row.id,
    async stop() {
      clearInterval(timer);
      await beating;
      await deleteServiceInstance(deps.db, row.id);
    },
  };
}
