import { MasterKeyError } from '../custody/master-key.ts';
import type { MasterKeyRing } from '../custody/master-key-ring.ts';
import { keysOfRotation, readMasterKeyState } from '../custody/store.ts';
import type { Db } from '../store/database.ts';
import { deriveTokenKey, type TokenKeys } from './tokens.ts';

/**
 * The access token keys of one instance: it signs with the key derived from the master key it runs
 * with, and accepts besides that the key of either master key of a rotation the store shows under
 * way (its keys moving, or its rollout not finished), read from the data directory when first met.
 * So during a rollout a token from an instance on the old key works on one restarted with the new
 * key and the other way round; once `keys finish-rotation` retires the old key, its tokens are
 * refused (4001) everywhere. Only tokens naming another key than the instance's own cost a store read.
 */
export class MasterKeyTokenKeys implements TokenKeys {
  readonly #signing: { id: string; key: Uint8Array };
  readonly #derived = new Map<string, Uint8Array>();

  constructor(
    private readonly db: Db,
    private readonly masterKeys: MasterKeyRing,
  ) {
    this.#signing = { id: masterKeys.primaryId, key: deriveTokenKey(masterKeys.primary) };
    this.#derived.set(this.#signing.id, this.#signing.key);
  }

  signing(): { id: string; key: Uint8Array } {
    return this.#signing;
  }

  async verifying(kid: string | undefined): Promise<Uint8Array[]> {
    if (kid === this.#signing.id) return [this.#signing.key];
    const accepted = keysOfRotation(await readMasterKeyState(this.db)).filter((id) => id !== this.#signing.id && (kid === undefined || id === kid));
    const keys = kid === undefined ? [this.#signing.key] : [];
    for (const id of new Set(accepted)) {
      const key = await this.#derive(id);
      if (key) keys.push(key);
    }
    return keys;
  }

  /** The token key of the master key `id`; undefined when that key is not in the data directory. */
  async #derive(id: string): Promise<Uint8Array | undefined> {
    const known = this.#derived.get(id);
    if (known) return known;
    try {
      const key = deriveTokenKey(await this.masterKeys.get(id));
      this.#derived.set(id, key);
      return key;
    } catch (error) {
      if (error instanceof MasterKeyError) return undefined;
      throw error;
    }
  }
}
