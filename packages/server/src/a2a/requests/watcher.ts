/**
 * Wakes long-polls of B3 when their request changes. A change made in this process (or announced
 * by the store's listener) is told with `notify` and wakes its watches at once; changes made by
 * other processes without an announcement (and outbox receipts) are found by one shared poll that
 * reads the change markers of every waiting key in one query every `intervalMs`. Waiting holds no DB
 * connection, and the poll runs only while someone waits.
 *
 * A long-poll watches its key before it reads the request, and keeps watching between its reads:
 * an announcement that arrives while a read is under way (a request changes in two commits, say,
 * and the second is announced while the first is being read) is kept for the next `next()`, not lost.
 */
export class ResultWatcher {
  readonly #watches = new Map<string, Set<Watch>>();
  readonly #readMarkers: (keys: string[]) => Promise<Map<string, string>>;
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #polling = false;
  #closed = false;

  constructor(options: { readMarkers: (keys: string[]) => Promise<Map<string, string>>; intervalMs: number }) {
    this.#readMarkers = options.readMarkers;
    this.#intervalMs = options.intervalMs;
  }

  /** Starts watching a key: announcements from now on are kept until `next()` takes them. Close it when done. */
  watch(key: string): KeyWatch {
    let set = this.#watches.get(key);
    if (!set) this.#watches.set(key, (set = new Set()));
    const watches = set;
    const watch = new Watch({
      schedule: () => this.#schedule(),
      watcherClosed: () => this.#closed,
      detach: () => {
        watches.delete(watch);
        if (watches.size === 0 && this.#watches.get(key) === watches) this.#watches.delete(key);
      },
    });
    watches.add(watch);
    return watch;
  }

  /** A request changed: its watches wake now (or at their next wait). */
  notify(key: string): void {
    for (const watch of [...(this.#watches.get(key) ?? [])]) watch.announce();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const set of [...this.#watches.values()]) for (const watch of [...set]) watch.announce();
  }

  #schedule(): void {
    if (this.#timer || this.#polling || this.#closed || !this.#someoneWaits()) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#poll();
    }, this.#intervalMs);
    this.#timer.unref();
  }

  #someoneWaits(): boolean {
    for (const set of this.#watches.values()) for (const watch of set) if (watch.waiting) return true;
    return false;
  }

  async #poll(): Promise<void> {
    this.#polling = true;
    try {
      const keys = [...this.#watches].filter(([, set]) => [...set].some((watch) => watch.waiting)).map(([key]) => key);
      if (keys.length === 0) return;
      const markers = await this.#readMarkers(keys);
      for (const key of keys) {
        const current = markers.get(key) ?? null;
        for (const watch of [...(this.#watches.get(key) ?? [])]) watch.markerIs(current);
      }
    } catch {
      // A failed read is retried at the next interval; the waits' own timeouts still bound them.
    } finally {
      this.#polling = false;
      this.#schedule();
    }
  }
}

/** One long-poll's watch of its key (ResultWatcher.watch). */
export interface KeyWatch {
  /**
   * Resolves when the key was announced since the last call (or since the watch began), when its
   * change marker differs from `marker`, after `timeoutMs`, or when `signal` aborts, whichever comes
   * first. Never rejects.
   */
  next(marker: string | null, timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /** The watcher closed (the service is stopping): waits end at once. */
  readonly watcherClosed: boolean;
  close(): void;
}

class Watch implements KeyWatch {
  readonly #owner: { schedule(): void; watcherClosed(): boolean; detach(): void };
  #closed = false;
  /** Announced while no wait was under way: the next wait ends at once. */
  #announced = false;
  #wait: { marker: string | null; done: () => void } | undefined;

  constructor(owner: { schedule(): void; watcherClosed(): boolean; detach(): void }) {
    this.#owner = owner;
  }

  get watcherClosed(): boolean {
    return this.#owner.watcherClosed();
  }

  get waiting(): boolean {
    return this.#wait !== undefined;
  }

  announce(): void {
    if (this.#wait) this.#wait.done();
    else this.#announced = true;
  }

  markerIs(current: string | null): void {
    if (this.#wait && this.#wait.marker !== current) this.#wait.done();
  }

  next(marker: string | null, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.#announced || this.#closed || this.#owner.watcherClosed() || timeoutMs <= 0 || signal?.aborted) {
      this.#announced = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.#wait = undefined;
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal?.addEventListener('abort', done, { once: true });
      this.#wait = { marker, done };
      this.#owner.schedule();
    });
  }

  close(): void {
    this.#wait?.done();
    if (this.#closed) return;
    this.#closed = true;
    this.#owner.detach();
  }
}
