import type { Logger } from 'pino';
import type { ChainRegistry } from '../chain/chains.ts';
import type { Config } from '../config/config.ts';
import type { KeyVault } from '../custody/key-vault.ts';
import type { TransactionOutbox } from '../outbox/outbox.ts';
import type { Store } from '../store/database.ts';
import type { RequestChangeListener } from './approval/commands.ts';
import { settleFee, settlePendingFees } from './fee-delegation/commands.ts';
import { changeMarkers } from './requests/store.ts';
import { ResultWatcher } from './requests/watcher.ts';

const SETTLEMENT_INTERVAL_MS = 2_000;
const SETTLEMENT_WAIT_MS = 120_000;

export interface A2aRuntimeDeps {
  config: Readonly<Config>;
  store: Store;
  vault: KeyVault;
  chains: ChainRegistry;
  outbox: TransactionOutbox;
  log: Logger;
}

/**
 * What the App2App routes of one HTTP app share: the long-poll watcher, and the background
 * settlement of delegated fees. The wallet-app routes report state changes to it.
 */
export class A2aRuntime implements RequestChangeListener {
  readonly watcher: ResultWatcher;
  readonly #deps: A2aRuntimeDeps;
  #settlementTimer: NodeJS.Timeout | undefined;
  #settling: Promise<unknown> | undefined;
  #closed = false;

  constructor(deps: A2aRuntimeDeps) {
    this.#deps = deps;
    this.watcher = new ResultWatcher({
      readMarkers: (keys) => changeMarkers(deps.store.db, keys),
      intervalMs: deps.config.a2a.resultPollIntervalMs,
    });
  }

  requestChanged(requestKey: string): void {
    this.watcher.notify(requestKey);
  }

  feeDelegatedSubmitted(requestKey: string, outboxId: string): void {
    void this.#deps.outbox
      .waitForFinal(outboxId, SETTLEMENT_WAIT_MS)
      .then(() => (this.#closed ? undefined : settleFee(this.#deps, requestKey)))
      .catch((error: Error) => this.#deps.log.warn(`fee settlement of ${requestKey}: ${error.message}`));
  }

  /** Starts the periodic settlement sweep (it also covers work a crashed process left). */
  start(): void {
    if (this.#settlementTimer || this.#closed) return;
    this.#settlementTimer = setInterval(() => {
      if (this.#settling) return;
      this.#settling = settlePendingFees(this.#deps)
        .catch((error: Error) => this.#deps.log.warn(`fee settlement: ${error.message}`))
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
