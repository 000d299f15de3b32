import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Everything the service and the CLI write (the store, chain state, uploaded files, backups, key
 * files, records) is the owner's alone: it holds names, phones, birth dates and wrapped keys.
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIRECTORY_MODE = 0o700;
/** The umask under which a process, and the children it starts (anvil), create owner-only files. */
export const PRIVATE_UMASK = 0o077;

/** Creates a directory (and its missing parents) for the owner alone. */
export function makePrivateDirectory(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
}

/** Creates an empty file for the owner alone unless it exists (so what opens it later, such as SQLite, keeps that mode). */
export function createPrivateFile(path: string): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
}

/**
 * Takes the group's and others' permissions off `root` and everything under it (an install made
 * before files were written owner-only, or files copied in by hand); symbolic links are left as
 * they are, and so are the files named in `leave` (paths relative to `root`). Returns the paths it
 * changed, and those it could not (owned by another user).
 */
export function makeTreePrivate(root: string, leave: readonly string[] = []): { changed: string[]; refused: string[] } {
  const left = new Set(leave.map((path) => join(root, path)));
  const changed: string[] = [];
  const refused: string[] = [];
  const visit = (path: string) => {
    let stats;
    try {
      stats = lstatSync(path);
    } catch {
      return; // gone meanwhile
    }
    if (stats.isSymbolicLink() || left.has(path)) return;
    if ((stats.mode & 0o077) !== 0) {
      try {
        chmodSync(path, stats.mode & 0o700);
        changed.push(path);
      } catch {
        refused.push(path);
      }
    }
    if (!stats.isDirectory()) return;
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      refused.push(path);
      return;
    }
    for (const name of names) visit(join(path, name));
  };
  visit(root);
  return { changed, refused };
}

/**
 * Makes the data directory owner-only at start (created 0700 when missing): an install whose
 * files were written before this was done is tightened, and the log says so once. The files in
 * `leave` are not changed: a master key others could read may have leaked, and its loader refuses
 * it rather than hide that.
 */
export function makeDataDirectoryPrivate(dataDir: string, log: { warn(message: string): void }, leave: readonly string[] = []): void {
  makePrivateDirectory(dataDir);
  const { changed, refused } = makeTreePrivate(dataDir, leave);
  if (changed.length > 0) log.warn(`the data directory ${dataDir} held ${changed.length} files and folders open to other local users; they are owner-only now (files 0600, folders 0700)`);
  if (refused.length > 0) log.warn(`the data directory ${dataDir} holds ${refused.length} files or folders other local users can read that this process cannot change (owned by another user?), e.g. ${refused[0]}: make them owner-only`);
}
