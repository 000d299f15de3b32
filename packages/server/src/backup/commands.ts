import { chmod, copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { Config } from '../config/config.ts';
import type { Store } from '../store/database.ts';
import { PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE } from '../lib/private-files.ts';

/** The backup's own description, beside the copied files. */
const MANIFEST = 'backup.json';
/** The SQLite store's file in the data directory (services.ts opens it there). */
const SQLITE_FILE = 'wallet.sqlite';

/**
 * What is not copied from the data directory: the live database files (copied through SQLite's
 * online backup instead), the record of the running service and of its nodes (process ids), and
 * files still being written (uploads in progress, storage's `.incoming`).
 */
function skipped(path: string): boolean {
  const name = path.split('/').pop()!;
  return (
    path === SQLITE_FILE || path === `${SQLITE_FILE}-wal` || path === `${SQLITE_FILE}-shm` || path === 'service.json' || path === 'tmp' ||
    name === 'node.json' || name === '.incoming' || name.endsWith('.tmp')
  );
}

/** A backup or restore refused before anything was written. */
export class BackupError extends Error {
  override readonly name = 'BackupError';
}

export interface BackupResult {
  directory: string;
  store: string;
  files: number;
  master_key_included: boolean;
  note: string;
}

/**
 * `backup create --to DIR`, beside a running service. The store first (SQLite's online backup, a
 * consistent copy however many writes go on), then the data directory's files: a file a copied row
 * names was stored before its row, so it is there; the chains' state may lag the store, and the
 * outbox replays what a restored node lacks. PostgreSQL is copied with pg_dump, not here.
 */
export async function createBackup(deps: { config: Pick<Config, 'dataDir' | 'databaseUrl'>; store: Pick<Store, 'backupTo'> }, to: string): Promise<BackupResult> {
  const directory = resolve(to);
  if (isInside(directory, deps.config.dataDir)) throw new BackupError(`${directory} is inside the data directory; back up elsewhere`);
  await assertEmptyOrMissing(directory);
  await mkdir(directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  const sqlite = deps.config.databaseUrl === null && deps.store.backupTo !== undefined;
  if (sqlite) await deps.store.backupTo!(join(directory, SQLITE_FILE));
  const files = await copyTree(deps.config.dataDir, directory, skipped);
  const masterKeyIncluded = files.includes('master.key');
  const store = sqlite ? `sqlite: ${SQLITE_FILE}` : 'postgresql: not copied, run pg_dump (docs/operations.md)';
  await writeFile(join(directory, MANIFEST), `${JSON.stringify({ created_at: new Date().toISOString(), store: sqlite ? 'sqlite' : 'postgresql', files }, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  return {
    directory,
    store,
    files: files.length,
    master_key_included: masterKeyIncluded,
    note: masterKeyIncluded
      ? 'the backup holds the master key: keep it as private as the key itself'
      : 'no master.key in the data directory: keep WALLET_MASTER_KEY with the backup, it cannot be restored without it',
  };
}

/**
 * `backup restore --from DIR` into the (new, empty) data directory. Nothing is opened: a service
 * started over the directory afterwards migrates and runs as the original did.
 */
export async function restoreBackup(deps: { config: Pick<Config, 'dataDir' | 'databaseUrl'> }, from: string): Promise<BackupResult> {
  const source = resolve(from);
  const manifest = await readManifest(source);
  const target = deps.config.dataDir;
  await assertEmptyOrMissing(target);
  if (manifest.store === 'sqlite' && deps.config.databaseUrl !== null) {
    throw new BackupError('the backup holds a SQLite store but DATABASE_URL is set; unset it to restore the SQLite store');
  }
  await mkdir(target, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  const files = await copyTree(source, target, (path) => path === MANIFEST);
  const masterKeyIncluded = files.includes('master.key');
  return {
    directory: target,
    store: manifest.store === 'sqlite' ? `sqlite: ${SQLITE_FILE}` : 'postgresql: not restored, run pg_restore (docs/operations.md)',
    files: files.length,
    master_key_included: masterKeyIncluded,
    note: masterKeyIncluded ? 'start the service with this data directory' : 'start the service with this data directory and the WALLET_MASTER_KEY of the backup',
  };
}

async function readManifest(directory: string): Promise<{ store: 'sqlite' | 'postgresql' }> {
  try {
    return JSON.parse(await readFile(join(directory, MANIFEST), 'utf8')) as { store: 'sqlite' | 'postgresql' };
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'has no backup.json' : 'has an unreadable backup.json';
    throw new BackupError(`${directory} is not a backup made by backup create (it ${reason})`);
  }
}

async function assertEmptyOrMissing(directory: string): Promise<void> {
  let entries: string[];
  try {
    if (!(await stat(directory)).isDirectory()) throw new BackupError(`${directory} exists and is not a directory`);
    entries = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (entries.length > 0) throw new BackupError(`${directory} exists and is not empty; give a new or empty directory`);
}

/** Copies the regular files under `from` to `to`, owner-only (0600, folders 0700) whatever their modes were; their paths relative to `from`. */
async function copyTree(from: string, to: string, skip: (path: string) => boolean, prefix = ''): Promise<string[]> {
  const copied: string[] = [];
  for (const entry of await readdir(join(from, prefix), { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (skip(path)) continue;
    if (entry.isDirectory()) {
      await mkdir(join(to, path), { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
      copied.push(...(await copyTree(from, to, skip, path)));
    } else if (entry.isFile()) {
      // A file removed since the listing (an upload replaced, a node's state rewritten) is skipped.
      const done = await copyFile(join(from, path), join(to, path)).then(
        () => chmod(join(to, path), PRIVATE_FILE_MODE).then(() => true),
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return false;
          throw error;
        },
      );
      if (done) copied.push(path);
    }
  }
  return copied;
}

function isInside(path: string, directory: string): boolean {
  const inner = relative(resolve(directory), path);
  return inner === '' || (!inner.startsWith('..') && !inner.startsWith('/'));
}
