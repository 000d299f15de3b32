import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a PIN key stays unlocked in memory after scrypt checked its PIN: from that check, not renewed by use. */
export const UNLOCKED_KEY_TTL_MS = 60_000;

interface Entry<Key> {
  key: Key;
  /** HMAC of the PIN under this process's random key: the PIN is checked again at every use, cheaply. */
  pinTag: Buffer;
  /** The row's wrapping when the key was unlocked: any PIN change or master key move makes it differ. */
  wrapping: string;
  expiresAt: number;
}

/**
 * PIN keys unlocked recently, so that a partner minting in a loop (or a member approving several
 * requests) pays scrypt (~150 ms of CPU) once a minute rather than at every call. Why this is safe
 * enough, and what it costs, is argued in docs/architecture.md ("Unlocked keys in memory"). The vault
 * uses an entry only with the right PIN, while the row shows no wrong PIN and the same wrapping as
 * when it was unlocked; it drops the entry at a wrong PIN, a PIN change and on close.
 */
export class UnlockedKeys<Key> {
  readonly #entries = new Map<string, Entry<Key>>();
  readonly #tagKey = randomBytes(32);
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: { ttlMs?: number; now?: () => number } = {}) {
    this.#ttlMs = options.ttlMs ?? UNLOCKED_KEY_TTL_MS;
    this.#now = options.now ?? Date.now;
  }

  /** The key unlocked with this PIN under this wrapping, if it is held and has not expired. */
  get(keyId: string, pin: string, wrapping: string): Key | undefined {
    const entry = this.#entries.get(keyId);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.#now() || entry.wrapping !== wrapping) {
      this.#entries.delete(keyId);
      return undefined;
    }
    return timingSafeEqual(entry.pinTag, this.#tag(pin)) ? entry.key : undefined;
  }

  set(keyId: string, pin: string, wrapping: string, key: Key): void {
    if (this.#ttlMs <= 0) return;
    this.#sweep();
    this.#entries.set(keyId, { key, pinTag: this.#tag(pin), wrapping, expiresAt: this.#now() + this.#ttlMs });
  }

  delete(keyId: string): void {
    this.#entries.delete(keyId);
  }

  /** Drops every key (the service is closing). */
  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Drops expired entries, so keys not used again do not stay in memory past their time. */
  #sweep(): void {
    const now = this.#now();
    for (const [keyId, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(keyId);
  }

  #tag(pin: string): Buffer {
    // PINs are SHA-256 hex in either case; the vault compares them lower-cased.
    return createHmac('sha256', this.#tagKey).update(pin.toLowerCase()).digest();
  }
}
