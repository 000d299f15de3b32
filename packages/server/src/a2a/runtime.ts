import type { Services } from '../services.ts';
import type { RequestChangeListener } from './approval.ts';
import { settleFee, settlePendingFees } from './fee-delegation.ts';
import { changeMarkers } from './request-store.ts';
import { ResultWatcher } from './result-watcher.ts';

const SETTLEMENT_INTERVAL_MS = 2_000;
const SETTLEMENT_WAIT_MS = 120_000;

/**
 * What the App2App routes of one HTTP app share: the long-poll watcher, and the background
 * settlement of delegated fees. The wallet-app routes report state changes to it.
 */
export class A2aRuntime implements RequestChangeListener {
  readonly watcher: ResultWatcher;
  readonly #services: Services;
  #settlementTimer: NodeJS.Timeout | undefined;
  #settling: Promise<unknown> | undefined;
  #closed = false;

  constructor(services: Services) {
    this.#services = services;
    this.watcher = new ResultWatcher({
      readMarkers: (keys) => changeMarkers(services.store.db, keys),
      intervalMs: services.config.a2a.resultPollIntervalMs,
    });
  }

  requestChanged(requestKey: string): void {
    this.watcher.notify(requestKey);
  }

  feeDelegatedSubmitted(requestKey: string, outboxId: string): void {
    void this.#services.outbox
      .waitForFinal(outboxId, SETTLEMENT_WAIT_MS)
      .then(() => (this.#closed ? undefined : settleFee(this.#services, requestKey)))
      .catch((error: Error) => this.#services.log.warn(`fee settlement of ${requestKey}: ${error.message}`));
  }

  /** Starts the periodic settlement sweep (it also covers work a crashed process left). */
  start(): void {
    if (this.#settlementTimer || this.#closed) return;
    this.#settlementTimer = setInterval(() => {
      if (this.#settling) return;
      this.#settling = settlePendingFees(this.#services)
        .catch((error: Error) => this.#services.log.warn(`fee settlement: ${error.message}`))
        .finally(() => (this.#settling = undefined));
    }, SETTLEMENT_INTERVAL_MS);
    this.#settlementTimer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#settlementTimer);
    this.watcher.close();
    await this.#settling;
  }
}
