import type { Logger } from 'pino';
import type { ChainRegistry } from '../chain/chains.ts';
import type { Config } from '../config/config.ts';
import type { KeyVault } from '../custody/key-vault.ts';
import type { TransactionOutbox } from '../outbox/outbox.ts';
import type { Store } from '../store/database.ts';
import type { RequestChangeListener } from './approval/commands.ts';
import { settleFee, settlePendingFees } from './fee-delegation/commands.ts';
import type { Listening } from '../store/database.ts';
import { changeMarkers, listenForRequestChanges, watchOwnRequestWrites } from './requests/store.ts';
import { ResultWatcher } from './requests/watcher.ts';
import { HeldResults, type ChangeFeed } from './requests/held-results.ts';

const SETTLEMENT_INTERVAL_MS = 2_000;
const SETTLEMENT_WAIT_MS = 120_000;

export interface A2aRuntimeDeps {
  config: Readonly<Config>;
  store: Store;
  vault: KeyVault;
  chains: ChainRegistry;
  outbox: TransactionOutbox;
  log: Logger;
  /** Counts requests by type and outcome (metrics). */
  a2aRecorder?: { a2aRequest(type: string, outcome: string): void };
}

/**
 * What the App2App routes of one HTTP app share: the long-poll watcher, and the background
 * settlement of delegated fees. The wallet-app routes report state changes to it.
 */
export class A2aRuntime implements RequestChangeListener {
  readonly watcher: ResultWatcher;
  /** B3 answers held in memory while they are known current (see changeFeed). */
  readonly heldResults: HeldResults;
  readonly #deps: A2aRuntimeDeps;
  #settlementTimer: NodeJS.Timeout | undefined;
  #settling: Promise<unknown> | undefined;
  #listening: Promise<Listening | undefined> | undefined;
  /** PostgreSQL: the listener, once its LISTEN is answered. */
  #listener: Listening | undefined;
  /** SQLite: this connection's own writes are announced (watchOwnRequestWrites), and what stops it. */
  #ownWrites: Promise<(() => void) | undefined> | undefined;
  #ownWritesWatched = false;
  #closed = false;

  constructor(deps: A2aRuntimeDeps) {
    this.#deps = deps;
    this.watcher = new ResultWatcher({
      readMarkers: (keys) => changeMarkers(deps.store.db, keys),
      intervalMs: deps.config.a2a.resultPollIntervalMs,
    });
    this.heldResults = new HeldResults(this.#changeFeed());
  }

  /**
   * What tells held answers current. PostgreSQL: the listening connection (every change, from any
   * process, is announced on it by the triggers of migration 017); a poll waits for a round trip on
   * it, after which every change committed before the poll has been announced, and a reconnection
   * drops everything held. SQLite: temporary triggers announce this connection's own writes at once,
   * and `data_version` changes when any other connection commits. Without either, nothing is held.
   */
  #changeFeed(): ChangeFeed {
    const { store } = this.#deps;
    if (store.listen) {
      return {
        position: () => this.#listener?.connection() ?? null,
        current: () => this.#listener?.caughtUp() ?? null,
      };
    }
    const dataVersion = store.dataVersion?.bind(store);
    if (dataVersion) {
      const position = () => (this.#ownWritesWatched && !this.#closed ? dataVersion() : null);
      return { position, current: position };
    }
    return { position: () => null, current: () => null };
  }

  requestChanged(requestKey: string): void {
    this.watcher.notify(requestKey);
  }

  /** Announced by the store (another process, an outbox receipt, this process's own write). */
  #announced(requestKey: string): void {
    this.heldResults.changed(requestKey);
    this.watcher.notify(requestKey);
  }

  requestFinished(type: string, status: string): void {
    this.#deps.a2aRecorder?.a2aRequest(type, status);
  }

  /** B1 answered: `prepared`, or `refused` with the type when the body named a known one. */
  prepareAnswered(type: string, outcome: 'prepared' | 'refused'): void {
    this.#deps.a2aRecorder?.a2aRequest(type, outcome);
  }

  feeDelegatedSubmitted(requestKey: string, outboxId: string): void {
    void this.#deps.outbox
      .waitForFinal(outboxId, SETTLEMENT_WAIT_MS)
      .then(() => (this.#closed ? undefined : settleFee(this.#deps, requestKey)))
      .catch((error: Error) => this.#deps.log.warn(`fee settlement of ${requestKey}: ${error.message}`));
  }

  /**
   * Starts the periodic settlement sweep (it also covers work a crashed process left), and on
   * PostgreSQL listens for requests changed by other instances, so their long-polls answer at once
   * rather than at the watcher's next poll (which stays, for what a dropped listener misses).
   */
  start(): void {
    if (this.#settlementTimer || this.#closed) return;
    this.#listening = listenForRequestChanges(this.#deps.store, (requestKey) => this.#announced(requestKey)).then(
      (listener) => (this.#listener = listener),
      (error: Error) => {
        this.#deps.log.warn(`a2a: listening for request changes: ${error.message}; other instances' changes are polled`);
        return undefined;
      },
    );
    this.#ownWrites = watchOwnRequestWrites(this.#deps.store, (requestKey) => this.heldResults.changed(requestKey)).then(
      (stop) => {
        this.#ownWritesWatched = stop !== undefined;
        return stop;
      },
      (error: Error) => {
        this.#deps.log.warn(`a2a: watching this process's request writes: ${error.message}; no result is held in memory`);
        return undefined;
      },
    );
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
    this.heldResults.clear();
    (await this.#ownWrites)?.();
    this.#listener = undefined;
    await (await this.#listening)?.close();
    await this.#settling;
  }
}
