import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/database.ts';
import { uploadTempDir } from '../receive.ts';

/** Every trace an upload can leave: stored files (local storage), temporary files and rows. */
export interface StoredState {
  files: string[];
  temporary: string[];
  rows: number;
}

export async function storedState(deps: { config: Readonly<Config>; store: Store }): Promise<StoredState> {
  const rows = await deps.store.db.selectFrom('uploaded_files').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  return {
    files: listFiles(join(deps.config.dataDir, 'files')),
    temporary: listFiles(uploadTempDir(deps.config.dataDir)),
    rows: Number(rows.count),
  };
}

/** Paths of the regular files under a directory (relative to it), sorted; none when it does not exist. */
export function listFiles(root: string): string[] {
  if (!existsSync(root)) return [];
  const found: string[] = [];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory)) {
      const path = join(directory, entry);
      if (statSync(path).isDirectory()) walk(path);
      else found.push(relative(root, path));
    }
  };
  walk(root);
  return found.sort();
}
