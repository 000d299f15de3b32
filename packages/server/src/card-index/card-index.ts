import { EventEmitter } from 'node:events';
import { isAddress } from 'viem';
import type { ChainRegistry } from '../chain/chains.ts';
import type { Db } from '../store/database.ts';
import { ChainCardIndexer, type CardIndexEvents, type CardIndexLog } from './chain-indexer.ts';
import {
  getIndexedCard,
  isFollowedContract,
  listCardsByOwner,
  listContractsHeldBy,
  type CardPage,
  type HeldContractPage,
  type IndexedCard,
  type ListCardsByOwnerInput,
  type ListContractsHeldByInput,
} from './store.ts';

export interface CardIndexOptions {
  db: Db;
  chains: ChainRegistry;
  /** How often each chain is polled for new blocks. */
  pollIntervalMs: number;
  /** Most blocks one eth_getLogs call covers. */
  blockRange: number;
  log?: CardIndexLog;
}

/**
 * The card index: who holds which card, as the chain's Transfer logs say, kept in the store so
 * lists are keyset pages instead of chain scans. `start()` runs one indexer per configured chain
 * (the service does so alongside the outbox); the queries work whether or not it runs.
 * Events: `range` after each applied block range, `rewind` after the index went back to a fork point.
 * @example
 * await services.cardIndex.waitUntilIndexed('main', Number(receipt.blockNumber));
 * const page = await services.cardIndex.listByOwner({ chain: 'main', owner, limit: 100 });
 */
export class CardIndex extends EventEmitter<CardIndexEvents> {
  private readonly db: Db;
  private readonly chains: ChainRegistry;
  private readonly indexers = new Map<string, ChainCardIndexer>();
  private running = false;

  constructor(options: CardIndexOptions) {
    super();
    this.db = options.db;
    this.chains = options.chains;
    const log = options.log ?? { info: () => {}, warn: () => {} };
    for (const chain of options.chains.all()) {
      this.indexers.set(
        chain.name,
        new ChainCardIndexer({
          db: options.db,
          chain,
          pollIntervalMs: options.pollIntervalMs,
          blockRange: options.blockRange,
          log,
          events: this,
        }),
      );
    }
  }

  /** Starts following every configured chain (from each contract's cursor). */
  start(): void {
    this.running = true;
    for (const indexer of this.indexers.values()) indexer.start();
  }

  /** Stops after the range in progress is committed. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all([...this.indexers.values()].map((indexer) => indexer.stop()));
  }

  /**
   * Follows `contract` (any ERC-721) on `chain` from `fromBlock` (default 0), persistently. Card
   * contracts of nft_contracts are followed without this, from their deployment block.
   */
  async follow(chain: string, contract: string, options: { fromBlock?: number } = {}): Promise<void> {
    if (!isAddress(contract, { strict: false })) throw new TypeError('contract must be an address');
    const fromBlock = options.fromBlock ?? 0;
    if (!Number.isSafeInteger(fromBlock) || fromBlock < 0) throw new RangeError('fromBlock must be a block number');
    await this.indexer(chain).follow(contract, fromBlock);
  }

  /**
   * Resolves once every followed contract of `chain` is indexed through `blockNumber` (e.g. the
   * block of a receipt just seen); throws after `timeoutMs`. Without a running indexer it indexes
   * in the caller's turn.
   */
  async waitUntilIndexed(chain: string, blockNumber: number | bigint, options: { timeoutMs?: number } = {}): Promise<void> {
    const indexer = this.indexer(chain);
    const target = Number(blockNumber);
    const deadline = Date.now() + (options.timeoutMs ?? 30_000);
    let lastRead = false;
    for (;;) {
      const advancesBefore = indexer.advances;
      if ((await indexer.indexedBlock()) >= target) return;
      // An advance during the read may not be in what it read: read again, rather than wait for
      // the next advance; past the deadline, once more before giving up.
      const advanced = indexer.advances !== advancesBefore;
      const left = deadline - Date.now();
      if (left <= 0) {
        if (advanced && !lastRead) {
          lastRead = true;
          continue;
        }
        throw new Error(`card index: chain ${chain} not indexed through block ${target} in time`);
      }
      if (advanced) continue;
      if (this.running) {
        indexer.kick();
        await indexer.nextAdvance(Math.min(left, 250));
      } else {
        await indexer.pass();
      }
    }
  }

  /** Whether `contract` (lower-case) is followed on `chain`: see isFollowedContract. */
  follows(chain: string, contract: string): Promise<boolean> {
    return isFollowedContract(this.db, this.chains.get(chain).name, contract);
  }

  /** The block through which every followed contract of `chain` is indexed (+Infinity when none is followed). */
  indexedBlock(chain: string): Promise<number> {
    return this.indexer(chain).indexedBlock();
  }

  /** See listCardsByOwner; through `db` when given (a snapshot the caller holds: Store.readSnapshot). */
  listByOwner(input: ListCardsByOwnerInput, db: Db = this.db): Promise<CardPage> {
    return listCardsByOwner(db, input);
  }

  /** See listContractsHeldBy. */
  listContractsHeldBy(input: ListContractsHeldByInput): Promise<HeldContractPage> {
    return listContractsHeldBy(this.db, input);
  }

  /** One card, burned or not; undefined when the index has never seen it. */
  getCard(chain: string, contract: string, tokenId: number | bigint): Promise<IndexedCard | undefined> {
    return getIndexedCard(this.db, chain, contract, tokenId);
  }

  private indexer(chain: string): ChainCardIndexer {
    const indexer = this.indexers.get(this.chains.get(chain).name);
    if (!indexer) throw new Error(`card index: chain ${chain} has no indexer`);
    return indexer;
  }
}
