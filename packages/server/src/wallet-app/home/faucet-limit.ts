/**
 * One faucet send per member and chain per interval, in this process's memory: the faucet exists
 * only on embedded (development) chains, which one service process runs.
 */
export class FaucetLimit {
  readonly #lastSendMs = new Map<string, number>();

  constructor(private readonly intervalSeconds: number) {}

  /** Takes a send for `key` now: 0 when allowed, else the seconds to wait. */
  take(key: string, nowMs = Date.now()): number {
    const last = this.#lastSendMs.get(key);
    const waitMs = last === undefined ? 0 : last + this.intervalSeconds * 1000 - nowMs;
    if (waitMs > 0) return Math.ceil(waitMs / 1000);
    this.#lastSendMs.set(key, nowMs);
    return 0;
  }

  /** Gives a send back (it failed). */
  release(key: string): void {
    this.#lastSendMs.delete(key);
  }
}
