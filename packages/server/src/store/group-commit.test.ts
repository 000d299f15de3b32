import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type SqliteDatabase from 'better-sqlite3';
import { openStore } from './database.ts';

// The driver the store loads on this Node.js (see sqliteDriver in database.ts).
const Database = createRequire(import.meta.url)(Number(process.versions.napi) >= 10 ? 'better-sqlite3' : 'better-sqlite3-node20') as typeof SqliteDatabase;

function storedKeys(path: string): string[] {
  const reader = new Database(path, { readonly: true });
  try {
    return (reader.prepare('select key from service_settings order by key').all() as Array<{ key: string }>).map((row) => row.key);
  } finally {
    reader.close();
  }
}

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
    assert.deepEqual(storedKeys(path), ['a', 'b', 'c']);
    // The store goes on taking work after a group with failures.
    assert.equal(await write('d'), 'd');
    assert.deepEqual(storedKeys(path), ['a', 'b', 'c', 'd']);
  } finally {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  }
});

test('a process killed while groups commit has stored every write it answered', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'wallet-group-commit-kill-'));
  const path = join(directory, 'wallet.sqlite');
  try {
    // Writes in waves of 8 and prints each key once its groupCommit has answered; killed with
    // SIGKILL partway, while later waves are being committed.
    const script = `
      const { openStore } = await import(${JSON.stringify(new URL('./database.ts', import.meta.url).href)});
      const store = await openStore({ sqlitePath: ${JSON.stringify(path)} });
      console.log('open');
      for (let wave = 0; ; wave++) {
        await Promise.all(Array.from({ length: 8 }, async (_, n) => {
          const key = 'k' + String(wave * 8 + n).padStart(6, '0');
          await store.groupCommit((trx) => trx.insertInto('service_settings').values({ key, value: 'v' }).execute());
          process.stdout.write(key + '\\n');
        }));
      }
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: new URL('.', import.meta.url), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        // Enough answered writes that the kill lands among running groups.
        if (output.split('\n').filter((line) => line.startsWith('k')).length >= 200) resolve();
      });
      child.on('exit', () => reject(new Error(`the writer ended on its own: ${stderr}`)));
    });
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    const answered = output.split('\n').filter((line) => /^k\d{6}$/.test(line));
    const stored = new Set(storedKeys(path));
    assert.ok(answered.length >= 200);
    assert.deepEqual(answered.filter((key) => !stored.has(key)), [], 'answered writes missing after the kill');
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
