import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, copyFile, mkdir, open, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE } from '../lib/private-files.ts';
import { assertStorageKey, type ByteRange, type FileStorage, type StoredObject } from './file-storage.ts';

/**
 * Files under a root directory (`<dataDir>/files`). A put is written to `<root>/.incoming/` first and
 * renamed into place after an fsync, so a crash or a failure never leaves a partial file under a key.
 */
export class LocalFileStorage implements FileStorage {
  readonly kind = 'local' as const;
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  async put(key: string, source: string | Uint8Array, _options: { contentType: string }): Promise<void> {
    const target = this.#path(key);
    const incoming = join(this.root, '.incoming', `${randomUUID()}.part`);
    await mkdir(dirname(incoming), { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
    await mkdir(dirname(target), { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
    try {
      // Owner-only, whatever the mode of the file it was copied from.
      if (typeof source === 'string') await copyFile(source, incoming).then(() => chmod(incoming, PRIVATE_FILE_MODE));
      else await writeNew(incoming, source);
      await fsync(incoming);
      await rename(incoming, target);
    } finally {
      await rm(incoming, { force: true });
    }
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | undefined> {
    const path = this.#path(key);
    let size: number;
    try {
      const stats = await stat(path);
      if (!stats.isFile()) return undefined;
      size = stats.size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    if (range) {
      const end = Math.min(range.end, size - 1);
      return { body: createReadStream(path, { start: range.start, end }), contentLength: Math.max(0, end - range.start + 1) };
    }
    return { body: createReadStream(path), contentLength: size };
  }

  async delete(key: string): Promise<void> {
    await unlink(this.#path(key)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.#path(key))).isFile();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  publicUrl(_key: string): string | undefined {
    return undefined;
  }

  async close(): Promise<void> {}

  #path(key: string): string {
    assertStorageKey(key);
    return join(this.root, ...key.split('/'));
  }
}

async function writeNew(path: string, bytes: Uint8Array): Promise<void> {
  const handle = await open(path, 'wx', PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
}

async function fsync(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
