import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadMasterKey, MasterKeyError } from './master-key.ts';

const root = mkdtempSync(join(tmpdir(), 'custody-master-'));
let counter = 0;
function freshDir(): string {
  counter += 1;
  return join(root, `data-${counter}`, 'nested');
}

describe('master key', { skip: process.platform === 'win32' && 'file modes are POSIX' }, () => {
  after(() => rmSync(root, { recursive: true, force: true }));

  test('is created once with mode 0600 and loaded again unchanged', async () => {
    const dataDir = freshDir();
    const first = await loadMasterKey({ dataDir, masterKeyHex: null });
    assert.equal(first.length, 32);
    const file = join(dataDir, 'master.key');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.match(readFileSync(file, 'utf8'), /^[0-9a-f]{64}\n$/);
    const second = await loadMasterKey({ dataDir, masterKeyHex: null });
    assert.deepEqual(second, first);
    assert.deepEqual(readdirSync(dataDir), ['master.key'], 'no temporary file is left behind');
  });

  test('processes starting together agree on one key', async () => {
    const dataDir = freshDir();
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadMasterKey({ dataDir, masterKeyHex: null })));
    for (const key of keys) assert.deepEqual(key, keys[0]);
  });

  test('refuses a file that group or others can read', async () => {
    const dataDir = freshDir();
    await loadMasterKey({ dataDir, masterKeyHex: null });
    chmodSync(join(dataDir, 'master.key'), 0o644);
    await assert.rejects(loadMasterKey({ dataDir, masterKeyHex: null }), (error: unknown) => {
      assert.ok(error instanceof MasterKeyError);
      assert.match(error.message, /group or others.*0644/);
      return true;
    });
  });

  test('refuses a malformed file', async () => {
    const dataDir = freshDir();
    await loadMasterKey({ dataDir, masterKeyHex: null });
    writeFileSync(join(dataDir, 'master.key'), 'not a key\n', { mode: 0o600 });
    await assert.rejects(loadMasterKey({ dataDir, masterKeyHex: null }), (error: unknown) => {
      assert.ok(error instanceof MasterKeyError);
      assert.match(error.message, /malformed/);
      return true;
    });
    writeFileSync(join(dataDir, 'master.key'), 'ab'.repeat(31));
    await assert.rejects(loadMasterKey({ dataDir, masterKeyHex: null }), MasterKeyError);
  });

  test('the configured hex wins over the file and creates none', async () => {
    const dataDir = freshDir();
    const fromFile = await loadMasterKey({ dataDir, masterKeyHex: null });
    const hex = '0123456789ABCDEF'.repeat(4);
    const configured = await loadMasterKey({ dataDir, masterKeyHex: hex });
    assert.deepEqual(Buffer.from(configured), Buffer.from(hex, 'hex'));
    assert.notDeepEqual(configured, fromFile);

    const untouched = freshDir();
    await loadMasterKey({ dataDir: untouched, masterKeyHex: 'ff'.repeat(32) });
    assert.throws(() => statSync(join(untouched, 'master.key')), /ENOENT/);
  });

  test('refuses configured hex of the wrong shape', async () => {
    await assert.rejects(loadMasterKey({ dataDir: freshDir(), masterKeyHex: 'ab'.repeat(31) }), MasterKeyError);
    await assert.rejects(loadMasterKey({ dataDir: freshDir(), masterKeyHex: 'zz'.repeat(32) }), MasterKeyError);
  });
});
