import type { AuthResult, Connection, KeyValueStorage } from './types.ts';

/** The storage key of the connected addresses unless the client is given another. */
export const DEFAULT_STORAGE_KEY = 'wallet-a2a.connection';

const ADDRESS_FIELDS = ['main_address', 'evm_address', 'bitcoin_address', 'solana_address', 'tron_address', 'xrpl_address'] as const;

/** A storage that lives as long as the process (Node.js, or a browser that refuses localStorage). */
export function memoryStorage(): KeyValueStorage {
  const values = new Map<string, string>();
  return {
    getItem: (key) => values.get(key) ?? null,
    setItem: (key, value) => void values.set(key, value),
    removeItem: (key) => void values.delete(key),
  };
}

/** The page's localStorage when there is one that works, otherwise memory. */
export function defaultStorage(): KeyValueStorage {
  try {
    const local = (globalThis as { window?: { localStorage?: KeyValueStorage } }).window?.localStorage;
    if (local) {
      const probe = `${DEFAULT_STORAGE_KEY}.probe`;
      local.setItem(probe, '1');
      local.removeItem(probe);
      return local;
    }
  } catch {
    // Private modes and sandboxed frames may refuse storage.
  }
  return memoryStorage();
}

/** Keeps the addresses of the last completed auth until `forget()`. */
export class ConnectionStore {
  constructor(
    private readonly storage: KeyValueStorage | null,
    private readonly key: string,
  ) {}

  /** Stores the addresses of an auth result (nothing else of it). */
  remember(result: AuthResult): void {
    if (!this.storage) return;
    const connection: Record<string, unknown> = {};
    for (const field of ADDRESS_FIELDS) if (typeof result[field] === 'string') connection[field] = result[field];
    connection.connected_at = Math.floor(Date.now() / 1000);
    this.storage.setItem(this.key, JSON.stringify(connection));
  }

  read(): Connection | null {
    const text = this.storage?.getItem(this.key);
    if (!text) return null;
    try {
      const connection = JSON.parse(text) as Connection;
      return typeof connection?.main_address === 'string' ? connection : null;
    } catch {
      return null;
    }
  }

  /** Deletes the stored addresses at once. */
  forget(): void {
    this.storage?.removeItem(this.key);
  }
}
