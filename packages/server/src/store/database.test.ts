import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import type SqliteDatabase from 'better-sqlite3';
import { openStore } from './database.ts';

// The driver the store loads on this Node.js (see sqliteDriver in database.ts).
const Database = createRequire(import.meta.url)(Number(process.versions.napi) >= 10 ? 'better-sqlite3' : 'better-sqlite3-node20') as typeof SqliteDatabase;

test('SQLite statements dropped from the cache are collected, and the process exits, without an abort', () => {
  const directory = mkdtempSync(join(tmpdir(), 'wallet-sqlite-gc-'));
  try {
    // More distinct statements than the store keeps, then collections: each dropped statement is
    // freed by the garbage collector, as on a long-running service. Run in a child process because
    // a native abort ends the process that hits it.
    const script = `
      import { sql } from 'kysely';
      const { openStore } = await import(${JSON.stringify(new URL('./database.ts', import.meta.url).href)});
      const store = await openStore({ sqlitePath: ${JSON.stringify(join(directory, 'wallet.db'))} });
      for (let round = 0; round < 5; round++) {
        for (let n = 0; n < 1000; n++) await sql.raw('select ' + (round * 1000 + n) + ' as n').execute(store.db);
        globalThis.gc();
      }
      await store.close();
      console.log('closed');
    `;
    const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: new URL('.', import.meta.url),
      encoding: 'utf8',
    });
    assert.equal(child.signal, null, child.stderr);
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'closed');
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('a SQLite transaction that reads and then writes holds the write lock from its start', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'wallet-sqlite-immediate-'));
  const path = join(directory, 'wallet.sqlite');
  const store = await openStore({ sqlitePath: path });
  // Another connection to the file, as another process on the data directory would hold, that does not wait for locks.
  const other = new Database(path);
  other.pragma('busy_timeout = 0');
  try {
    const settle = (key: string) => other.prepare('insert into service_settings (key, value) values (?, ?)').run(key, 'other');
    const outcome = await store.db.transaction().execute(async (trx) => {
      await trx.selectFrom('service_settings').selectAll().execute();
      let otherWrite: string;
      try {
        settle('other-during');
        otherWrite = 'committed';
      } catch (error) {
        otherWrite = (error as { code?: string }).code ?? String(error);
      }
      await trx.insertInto('service_settings').values({ key: 'mine', value: 'this transaction' }).execute();
      return otherWrite;
    });
    // The other connection could not commit in the middle; this transaction's write went through.
    assert.equal(outcome, 'SQLITE_BUSY');
    settle('other-after');
    const keys = await store.db.selectFrom('service_settings').select('key').where('key', 'in', ['mine', 'other-during', 'other-after']).orderBy('key').execute();
    assert.deepEqual(keys.map((row) => row.key), ['mine', 'other-after']);
  } finally {
    other.close();
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  }
});
