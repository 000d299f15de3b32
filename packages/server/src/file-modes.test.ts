import assert from 'node:assert/strict';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { buildApp } from './app.ts';
import { createBackup } from './backup/commands.ts';
import { buildMintPayload, mintOk } from './cards/testing/card-factories.ts';
import { claimDataDir } from './cli/service-record.ts';
import { signedInPartner } from './partner-api/testing/partner-session.ts';
import { eventually } from './testing/eventually.ts';
import { createTestInstallation, type TestInstallation } from './testing/test-services.ts';
import { buildPng } from './uploads/testing/media.ts';
import { uploadBody } from './uploads/testing/multipart.ts';

/**
 * Every file and folder under `root` (itself included) with its permission bits, by path relative
 * to it; folders are in `folders`. A file gone between the listing and its look (the running node
 * renames its state dump into place every second) is left out.
 */
function modesUnder(root: string, folders = new Set<string>()): Map<string, number> {
  const modes = new Map<string, number>();
  const visit = (path: string) => {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (!stats) return;
    const name = relative(root, path) || '.';
    modes.set(name, stats.mode & 0o777);
    if (stats.isDirectory()) {
      folders.add(name);
      for (const entry of readdirSync(path)) visit(join(path, entry));
    }
  };
  visit(root);
  return modes;
}

function assertOwnerOnly(root: string): Map<string, number> {
  const folders = new Set<string>();
  const modes = modesUnder(root, folders);
  const loose = [...modes].filter(([path, mode]) => mode !== (folders.has(path) ? 0o700 : 0o600));
  assert.deepEqual(loose.map(([path, mode]) => `${path} ${mode.toString(8)}`), [], `every folder 0700 and every file 0600 under ${root}`);
  return modes;
}

// The umask most systems give a user: without explicit modes, files would be 0644 and folders 0755.
// The files a service writes are the same on both stores but for the SQLite file and its WAL, which
// these tests look at by name: they run in the SQLite pass only.
const onlySqlite = { skip: process.env.WALLET_TEST_STORE === 'postgres' ? 'the SQLite store\'s files: checked in the SQLite pass' : false };
const umaskBefore = process.umask(0o022);
let installation: TestInstallation;
const backups = mkdtempSync(join(tmpdir(), 'wallet-backup-'));
before(async () => {
  if (!onlySqlite.skip) installation = await createTestInstallation();
});
after(async () => {
  await installation?.remove();
  rmSync(backups, { recursive: true, force: true });
  process.umask(umaskBefore);
});

test('what the service writes is owner-only under a 022 umask: the store and its WAL, chain state and its copies, uploads, backups, records, the master key', onlySqlite, async () => {
  const { dataDir } = installation;
  let services = await installation.open();
  const record = claimDataDir(services.config);
  try {
    const app = await buildApp({ services });
    const partner = await signedInPartner(app, services);
    const image = uploadBody(buildPng({ width: 32, height: 32 }), 'card.png', 'image/png');
    const uploaded = await app.inject({ method: 'POST', url: '/v2/wallet/image', payload: image.payload, headers: { ...image.headers, authorization: partner.token } });
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    await mintOk(app, partner.token, buildMintPayload(partner, { to_address: [partner.partner.main_address] }));
    // The node dumps its state a second after it starts and every second after; a backup taken
    // before the first dump has none to copy (the outbox replays onto a restored node).
    await eventually('the node\'s first state dump', 30_000, async () => (existsSync(join(dataDir, 'chains/main/state.json')) ? true : undefined));
    await createBackup(services, join(backups, 'one'));
    await app.close();
    // While it runs (nothing was tightened at start: the directory was new).
    const running = assertOwnerOnly(dataDir);
    for (const path of ['.', 'master.key', 'service.json', 'wallet.sqlite', 'wallet.sqlite-wal', 'wallet.sqlite-shm', 'chains/main/node.json', 'files']) {
      assert.ok(running.has(path), `${path} is there (${[...running.keys()].join(', ')})`);
    }
    assert.ok([...running.keys()].some((path) => /^files\/.+\.png$/.test(path)), 'the uploaded image is there');
    const backup = assertOwnerOnly(join(backups, 'one'));
    for (const path of ['wallet.sqlite', 'backup.json', 'master.key', 'chains/main/state.json']) assert.ok(backup.has(path), `the backup holds ${path}`);
  } finally {
    await services.close();
    record.release();
  }
  // Stopped: the node dumped its state.
  assert.ok(assertOwnerOnly(dataDir).has('chains/main/state.json'));
  // Started again: the dump is copied aside (state.json.previous) before the node starts from it.
  services = await installation.open();
  try {
    assert.ok(assertOwnerOnly(dataDir).has('chains/main/state.json.previous'));
  } finally {
    await services.close();
  }
});

test('a data directory left group- and world-readable by an older version is made owner-only at start, and the log says so once; a master key others could read still stops the start', onlySqlite, async () => {
  const { dataDir } = installation;
  for (const [path] of modesUnder(dataDir)) chmodSync(join(dataDir, path), lstatSync(join(dataDir, path)).isDirectory() ? 0o755 : 0o644);
  assert.equal(modesUnder(dataDir).get('wallet.sqlite'), 0o644);
  // The key may have leaked: not hidden by a chmod, the start is refused and says why.
  await assert.rejects(installation.open(), /master\.key is accessible by group or others/);
  assert.equal(modesUnder(dataDir).get('master.key'), 0o644);
  // Versions before this one wrote master.key 0600 and everything else 0644.
  chmodSync(join(dataDir, 'master.key'), 0o600);
  for (const [path] of modesUnder(dataDir)) if (path !== 'master.key') chmodSync(join(dataDir, path), lstatSync(join(dataDir, path)).isDirectory() ? 0o755 : 0o644);
  const lines: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
  const services = await installation.open(log);
  try {
    assertOwnerOnly(dataDir);
    const told = lines.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((line) => /owner-only now/.test(line.msg));
    assert.equal(told.length, 1, lines.join('\n'));
    assert.equal(told[0]!.level, 40, 'a warning');
  } finally {
    await services.close();
  }
  // Started again with nothing to change: nothing said.
  const again: string[] = [];
  const quiet = await installation.open(pino({ level: 'info' }, { write: (line: string) => again.push(line) }));
  await quiet.close();
  assert.ok(!again.some((line) => /owner-only now/.test(line)), again.join('\n'));
  assert.ok(existsSync(join(dataDir, 'master.key')));
});
