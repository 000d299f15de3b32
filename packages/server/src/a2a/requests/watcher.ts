/**
 * Wakes long-polls of B3 when their request changes. A change made in this process is announced
 * with `notify` and wakes its waiters at once; changes made by other processes (and outbox
 * receipts) are found by one shared poll that reads the change markers of every watched key in one
 * query every `intervalMs`. Waiting holds no DB connection, and the poll runs only while someone
 * waits.
 */
export class ResultWatcher {
  readonly #waiters = new Map<string, Set<Waiter>>();
  readonly #readMarkers: (keys: string[]) => Promise<Map<string, string>>;
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #polling = false;
  #closed = false;

  constructor(options: { readMarkers: (keys: string[]) => Promise<Map<string, string>>; intervalMs: number }) {
    this.#readMarkers = options.readMarkers;
    this.#intervalMs = options.intervalMs;
  }

  /**
   * Resolves when the key's change marker differs from `marker` (or it is announced), after
   * `timeoutMs`, or when `signal` aborts, whichever comes first. Never rejects.
   */
  wait(key: string, marker: string | null, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.#closed || timeoutMs <= 0 || signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const waiter: Waiter = {
        marker,
        done: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', waiter.done);
          const set = this.#waiters.get(key);
          set?.delete(waiter);
          if (set && set.size === 0) this.#waiters.delete(key);
          resolve();
        },
      };
      const timer = setTimeout(waiter.done, timeoutMs);
      signal?.addEventListener('abort', waiter.done, { once: true });
      let set = this.#waiters.get(key);
      if (!set) this.#waiters.set(key, (set = new Set()));
      set.add(waiter);
      this.#schedule();
    });
  }

  /** Closed (the service is stopping): waits end at once. */
  get closed(): boolean {
    return this.#closed;
  }

  /** A request changed in this process: its waiters answer now. */
  notify(key: string): void {
    for (const waiter of [...(this.#waiters.get(key) ?? [])]) waiter.done();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const set of [...this.#waiters.values()]) for (const waiter of [...set]) waiter.done();
  }

  #schedule(): void {
    if (this.#timer || this.#polling || this.#closed || this.#waiters.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#poll();
    }, this.#intervalMs);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    this.#polling = true;
    try {
      const keys = [...this.#waiters.keys()];
      if (keys.length === 0) return;
      const markers = await this.#readMarkers(keys);
      for (const key of keys) {
        const current = markers.get(key) ?? null;
        for (const waiter of [...(this.#waiters.get(key) ?? [])]) if (waiter.marker !== current) waiter.done();
      }
    } catch {
      // A failed read is retried at the next interval; the waiters' own timeouts still bound them.
    } finally {
      this.#polling = false;
      this.#schedule();
    }
  }
}

interface Waiter {
  marker: string | null;
  done: () => void;
}
