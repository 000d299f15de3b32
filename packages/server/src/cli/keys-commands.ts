/** The master key commands (`keys …`); command-table.ts names them. */
import { finishRotation, masterKeyStatus, rotateMasterKey } from '../custody/rotation.ts';
import type { Handler, Needs } from './handler.ts';
import { wholeNumber } from './options.ts';

export const keysCommands = {
  'keys rotate-master': (async (services, values) => {
    const { store, vault, config } = services;
    const batchSize = typeof values['batch-size'] === 'string' ? Math.max(1, wholeNumber(values['batch-size'], 'batch-size', 10_000)) : undefined;
    const result = await rotateMasterKey(
      { db: store.db, dialect: store.dialect, vault, source: { dataDir: config.dataDir, masterKeyHex: config.masterKey } },
      { ...(batchSize ? { batchSize } : {}), afterBatch: killAfterBatchesForTests() },
    );
    return { ...result };
  }) satisfies Handler<Needs['services']>,
  /** Reads the store and the data directory only: works whatever key this command was given. */
  'keys status': (async ({ config, store }) => ({ ...(await masterKeyStatus({ db: store.db, dataDir: config.dataDir })) })) satisfies Handler<Needs['store']>,
  'keys finish-rotation': (async (services) => {
    const { store, vault, config } = services;
    const source = { dataDir: config.dataDir, masterKeyHex: config.masterKey };
    return { ...(await finishRotation({ db: store.db, dialect: store.dialect, source, masterKeyId: vault.masterKeyId })) };
  }) satisfies Handler<Needs['services']>,
};

/**
 * Tests stop a rotation as a crash would: WALLET_TEST_ROTATION_KILL_AFTER_BATCHES=N kills the
 * process (SIGKILL, nothing cleaned up) once N batches are committed.
 */
function killAfterBatchesForTests(): ((batches: number) => void) | undefined {
  const limit = Number(process.env.WALLET_TEST_ROTATION_KILL_AFTER_BATCHES ?? 0);
  if (!(limit > 0)) return undefined;
  return (batches) => {
    if (batches >= limit) process.kill(process.pid, 'SIGKILL');
  };
}
