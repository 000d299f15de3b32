import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

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
