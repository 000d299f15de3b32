import { masterKeyId } from './envelope.ts';
import { MasterKeyError, readDataDirMasterKeys } from './master-key.ts';

/**
 * The master keys a process can open rows with, by id: the one it started with and, during and
 * after a rotation, the new one (or, on an instance restarted with the new key, the old one), read
 * from the data directory the first time a row or access token tagged with it is met. So a running
 * service keeps signing while `keys rotate-master` moves its keys.
 */
export class MasterKeyRing {
  readonly primaryId: string;
  readonly #keys = new Map<string, Uint8Array>();

  constructor(
    readonly primary: Uint8Array,
    /** Where master.key and master.key.next are looked for; none: only the primary key. */
    private readonly dataDir?: string,
  ) {
    this.primaryId = masterKeyId(primary);
    this.#keys.set(this.primaryId, primary);
  }

  /** The key with this id (null: the primary key); MasterKeyError when no key known has it. */
  async get(id: string | null | undefined): Promise<Uint8Array> {
    if (!id) return this.primary;
    const known = this.#keys.get(id);
    if (known) return known;
    if (this.dataDir) {
      for (const key of await readDataDirMasterKeys(this.dataDir)) this.#keys.set(masterKeyId(key), key);
    }
    const found = this.#keys.get(id);
    if (!found) throw new MasterKeyError(`no master key with id ${id} is available (master.key, master.key.next, master.key.previous); a key of a rotation is missing from the data directory`);
    return found;
  }
}
