import { join } from 'node:path';
import type { Config } from '../config/config.ts';
import type { FileStorage } from './file-storage.ts';
import { LocalFileStorage } from './local-storage.ts';
import { S3FileStorage } from './s3-storage.ts';

export { assertStorageKey, type ByteRange, type FileStorage, type StoredObject } from './file-storage.ts';
export { LocalFileStorage } from './local-storage.ts';
export { S3FileStorage, type S3StorageSettings } from './s3-storage.ts';

/** Opens the storage the config names: `<dataDir>/files` by default, or an S3-compatible bucket. */
export async function openFileStorage(config: Pick<Config, 'dataDir' | 'storage'>): Promise<FileStorage> {
  const settings = config.storage;
  switch (settings.kind) {
    case 'local':
      return new LocalFileStorage(join(config.dataDir, 'files'));
    case 's3':
      return S3FileStorage.open(settings);
    default: {
      const unknown: never = settings;
      throw new Error(`unknown storage kind ${JSON.stringify(unknown)}`);
    }
  }
}
