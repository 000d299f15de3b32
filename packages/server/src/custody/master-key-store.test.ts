import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../config/config.ts';
import { openServices } from '../services.ts';
import { openStore } from '../store/database.ts';
import { createTestInstallation } from '../testing/test-services.ts';
import { MASTER_KEY_FILE, MasterKeyError } from './master-key.ts';

test('a master key other than the store\'s is refused at start, before anything is written', async () => {
  const installation = await createTestInstallation();
  try {
    const first = await installation.open();
    const keysBefore = await first.store.db.selectFrom('signing_keys').select('id').execute();
    await first.close();

    // A wrong WALLET_MASTER_KEY...
    const wrongKey = loadConfig({ env: {}, overrides: { ...installation.config, masterKey: randomBytes(32).toString('hex') } });
    const refusal = (error: unknown) =>
      error instanceof MasterKeyError && /is not the one this store's keys were sealed with/.test(error.message);
    await assert.rejects(openServices(wrongKey, { chainMode: 'own', ...(installation.postgresSchema ? { postgresSchema: installation.postgresSchema } : {}) }), refusal);
    // ...and a lost master.key, which the next start would otherwise replace with a new one.
    rmSync(join(installation.dataDir, MASTER_KEY_FILE));
    await assert.rejects(installation.open(), refusal);

    const store = await openStore({
      databaseUrl: installation.config.databaseUrl ?? undefined,
      sqlitePath: join(installation.dataDir, 'wallet.sqlite'),
      postgresSchema: installation.postgresSchema,
    });
    try {
      assert.deepEqual(await store.db.selectFrom('signing_keys').select('id').execute(), keysBefore, 'no key was sealed under the wrong master key');
    } finally {
      await store.close();
    }
  } finally {
    await installation.remove();
  }
});
