/**
 * Runs tasks one at a time per key, in the order they arrive, within this process. Tasks under
 * different keys run side by side. Used where a check and the count it updates in the store must
 * not interleave for one key (a PIN attempt, a password check).
 *
 * @example
 * const queue = new KeyedQueue();
 * await Promise.all([queue.run('key-1', tryPin), queue.run('key-1', tryPin)]); // one after the other
 */
export class KeyedQueue {
  /** Per key, a promise that settles when the last task queued under it has finished. */
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key);
    let finished!: () => void;
    const tail = new Promise<void>((resolve) => (finished = resolve));
    this.#tails.set(key, tail);
    try {
      if (previous) await previous;
      return await task();
    } finally {
      finished();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** Keys with a task running or waiting (for tests and diagnostics). */
  get size(): number {
    return this.#tails.size;
  }
}
