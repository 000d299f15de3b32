import { randomBytes, randomUUID } from 'node:crypto';
import { link, lstat, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';

const MASTER_KEY_BYTES = 32;
const MASTER_KEY_HEX = /^[0-9a-fA-F]{64}$/;
/** Name of the key file inside the data directory. */
export const MASTER_KEY_FILE = 'master.key';
/** The new key of a master key rotation in progress (`keys rotate-master`), beside master.key. */
export const NEXT_MASTER_KEY_FILE = 'master.key.next';
/**
 * The old key of a rotation, kept from `keys rotate-master` until `keys finish-rotation`: instances
 * restarted with the new key read it to accept access tokens still signed under the old one.
 */
export const PREVIOUS_MASTER_KEY_FILE = 'master.key.previous';

/** The master key could not be loaded; the service must not start. */
export class MasterKeyError extends Error {
  override readonly name = 'MasterKeyError';
}

/**
 * Returns the 32-byte master key: `masterKeyHex` (the configured 64 hex characters) when set,
 * otherwise `<dataDir>/master.key`, which is created with mode 0600 on first start. Throws
 * MasterKeyError when the file is readable by group or others, or does not hold 64 hex characters.
 */
export async function loadMasterKey(options: { dataDir: string; masterKeyHex: string | null }): Promise<Uint8Array> {
  if (options.masterKeyHex !== null) {
    if (!MASTER_KEY_HEX.test(options.masterKeyHex)) {
      throw new MasterKeyError('the configured master key must be 64 hex characters (32 bytes)');
    }
    return Uint8Array.from(Buffer.from(options.masterKeyHex, 'hex'));
  }
  const path = join(options.dataDir, MASTER_KEY_FILE);
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  await createIfMissing(path);
  return readKeyFile(path);
}

/**
 * Publishes a new random key at `path` unless a file is already there. The key is written in full to
 * a private temporary file and then hard-linked into place: link() fails when the name exists, so two
 * processes starting together agree on one key and neither can read a half-written file.
 */
async function createIfMissing(path: string): Promise<void> {
  if (await exists(path)) return;
  await publishNewKey(path);
}

/**
 * Writes a new random key to `<dataDir>/master.key.next` (0600, synced) for a rotation that has not
 * recorded its key yet, replacing what a rotation that crashed before recording left there.
 */
export async function createNextMasterKey(dataDir: string): Promise<Uint8Array> {
  const path = join(dataDir, NEXT_MASTER_KEY_FILE);
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await publishNewKey(path);
  await syncDirectory(dataDir);
  return readKeyFile(path);
}

/** The key in `<dataDir>/<name>` (one of the key files), or undefined when there is no such file. */
export async function readMasterKeyFile(dataDir: string, name: string): Promise<Uint8Array | undefined> {
  const path = join(dataDir, name);
  return (await exists(path)) ? readKeyFile(path) : undefined;
}

/** Makes the rotation's new key the data directory's master.key (one atomic rename). */
export async function promoteNextMasterKey(dataDir: string): Promise<void> {
  await rename(join(dataDir, NEXT_MASTER_KEY_FILE), join(dataDir, MASTER_KEY_FILE));
  await syncDirectory(dataDir);
}

/**
 * Keeps a rotation's old key as `<dataDir>/master.key.previous` (0600, synced), replacing what a
 * rotation that crashed left there: written in full to a private temporary file, then renamed.
 */
export async function keepPreviousMasterKey(dataDir: string, key: Uint8Array): Promise<void> {
  const path = join(dataDir, PREVIOUS_MASTER_KEY_FILE);
  const temporary = `${path}.${randomUUID()}.tmp`;
  const contents = Buffer.from(`${Buffer.from(key).toString('hex')}\n`, 'utf8');
  try {
    await writeNewPrivateFile(temporary, contents);
    await rename(temporary, path);
    await syncDirectory(dataDir);
  } finally {
    contents.fill(0);
    await unlink(temporary).catch(() => undefined);
  }
}

/** Deletes these key files of the data directory (the end of a rotation); those already gone are skipped. */
export async function removeMasterKeyFiles(dataDir: string, names: string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const name of names) {
    try {
      await unlink(join(dataDir, name));
      removed.push(name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  if (removed.length > 0) await syncDirectory(dataDir);
  return removed;
}

/** Which of the key files (master.key, master.key.next, master.key.previous) the data directory holds. */
export async function masterKeyFilesIn(dataDir: string): Promise<string[]> {
  const names: string[] = [];
  for (const name of [MASTER_KEY_FILE, NEXT_MASTER_KEY_FILE, PREVIOUS_MASTER_KEY_FILE]) if (await exists(join(dataDir, name))) names.push(name);
  return names;
}

/** The keys kept in the data directory (master.key, master.key.next, master.key.previous), whichever exist. */
export async function readDataDirMasterKeys(dataDir: string): Promise<Uint8Array[]> {
  const keys: Uint8Array[] = [];
  for (const name of [MASTER_KEY_FILE, NEXT_MASTER_KEY_FILE, PREVIOUS_MASTER_KEY_FILE]) {
    const path = join(dataDir, name);
    if (await exists(path)) keys.push(await readKeyFile(path));
  }
  return keys;
}

async function syncDirectory(path: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function publishNewKey(path: string): Promise<void> {
  const temporary = `${path}.${randomUUID()}.tmp`;
  const key = randomBytes(MASTER_KEY_BYTES);
  const contents = Buffer.from(`${key.toString('hex')}\n`, 'utf8');
  try {
    await writeNewPrivateFile(temporary, contents);
    try {
      await link(temporary, path);
    } catch (error) {
      // Another process published its key first; that one is the key.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  } finally {
    key.fill(0);
    contents.fill(0);
    await unlink(temporary).catch(() => undefined);
  }
}

/** Creates `path` (it must not exist) with mode 0600, writes `contents` and syncs it. */
async function writeNewPrivateFile(path: string, contents: Uint8Array): Promise<void> {
  const handle = await open(path, 'wx', 0o600);
  try {
    await handle.writeFile(contents);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function readKeyFile(path: string): Promise<Uint8Array> {
  const stats = await lstat(path);
  if (!stats.isFile()) throw new MasterKeyError(`${path} is not a regular file`);
  // Permission bits mean little on Windows; elsewhere a key others can read is already compromised.
  if (process.platform !== 'win32' && (stats.mode & 0o077) !== 0) {
    throw new MasterKeyError(
      `${path} is accessible by group or others (mode ${(stats.mode & 0o777).toString(8).padStart(4, '0')}); ` +
        `restrict it with chmod 600 after making sure it has not leaked`,
    );
  }
  const raw = await readFile(path);
  try {
    const text = raw.toString('utf8').trim();
    if (!MASTER_KEY_HEX.test(text)) {
      throw new MasterKeyError(`${path} is malformed: it must hold exactly 64 hex characters (32 bytes)`);
    }
    return Uint8Array.from(Buffer.from(text, 'hex'));
  } finally {
    raw.fill(0);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
