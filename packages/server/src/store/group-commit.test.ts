import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openStore } from './database.ts';
import { storedSettingKeys } from './testing/stored-keys.ts';



test('work that arrives together is committed together; a piece that throws is rolled back alone and its caller gets the error', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'wallet-group-commit-'));
  const path = join(directory, 'wallet.sqlite');
  const store = await openStore({ sqlitePath: path });
  try {
    const write = (key: string) => store.groupCommit(async (trx) => {
      await trx.insertInto('service_settings').values({ key, value: 'v' }).execute();
      return key;
    });
    const outcomes = await Promise.allSettled([
      write('a'),
      store.groupCommit(async (trx) => {
        // Writes, then fails: its write must go with it.
        await trx.insertInto('service_settings').values({ key: 'half-done', value: 'v' }).execute();
        throw new Error('refused');
      }),
      write('b'),
      // The same key again: a constraint error inside the shared transaction.
      write('a'),
      write('c'),
    ]);
    assert.deepEqual(
      outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as Error).message.split(':')[0])),
      ['a', 'refused', 'b', 'UNIQUE constraint failed', 'c'],
    );
    // Read through another connection: what the callers were answered is in the file.
    assert.deepEqual(storedSettingKeys(path), ['a', 'b', 'c']);
    // The store goes on taking work after a group with failures.
    assert.equal(await write('d'), 'd');
    assert.deepEqual(storedSettingKeys(path), ['a', 'b', 'c', 'd']);
  } finally {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  }
});
