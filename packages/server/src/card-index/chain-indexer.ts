import { EventEmitter } from 'node:events';
import { PollingLoop } from '../lib/polling-loop.ts';
import type { ChainContext } from '../chain/chains.ts';
import { confirmedHeight } from '../chain/confirmations.ts';
import type { Db } from '../store/database.ts';
import {
  applyTransferRange,
  insertIndexCursors,
  keptBlocksBelow,
  loadIndexCursors,
  lowestIndexedBlock,
  rewindCardIndex,
  unfollowedContracts,
  type IndexCursor,
} from './store.ts';
import { blockHashAt, fetchTransferRange } from './transfer-logs.ts';

export interface CardIndexLog {
  info(message: string): void;
  warn(message: string): void;
}

/** What the indexer reports as it goes (CardIndex re-emits these). */
export interface CardIndexEvents {
  /** A range of blocks was applied for some contracts. */
  range: [{ chain: string; fromBlock: number; toBlock: number; contracts: string[]; transfers: number }];
  /** The chain forked away from the index (reorg, or a node that lost blocks); it went back to forkBlock. */
  rewind: [{ chain: string; forkBlock: number; cards: number }];
}

export interface ChainCardIndexerOptions {
  db: Db;
  chain: ChainContext;
  pollIntervalMs: number;
  /** Most blocks one eth_getLogs call covers. */
  blockRange: number;
  log: CardIndexLog;
  events: EventEmitter<CardIndexEvents>;
}

/** How many stored block hashes one step of the fork search checks against the node. */
const FORK_SEARCH_STEP = 32;

/**
 * Follows the Transfer logs of one chain's card contracts into the store. Each pass: adopt newly
 * deployed contracts of nft_contracts, check the chain still contains the blocks the index was
 * built from (rewind if not), then read [cursor + 1, confirmed] in ranges of at most blockRange
 * blocks (confirmed: the newest block the chain's `confirmations` rule counts as final, so lists
 * show a card moved once its transaction is final everywhere else too),
 * each applied in one DB transaction together with its cursor. Contracts whose cursors stand at the
 * same block are read together, so a new contract catches up on its own and then joins the others.
 */
export class ChainCardIndexer {
  readonly name: string;
  private readonly options: ChainCardIndexerOptions;
  private readonly advanced = new EventEmitter();
  private advanceCount = 0;
  /** Shrinks when a node refuses a range as too large, grows back after each success. */
  private range: number;
  private readonly loop: PollingLoop;
  /** Set by stop(): a pass in progress ends after the range it is applying. */
  private stopping = false;
  private passing: Promise<void> | undefined;

  constructor(options: ChainCardIndexerOptions) {
    this.options = options;
    this.name = options.chain.name;
    this.range = options.blockRange;
    this.advanced.setMaxListeners(0);
    this.loop = new PollingLoop(() => this.pass(), options.pollIntervalMs, (error) =>
      this.options.log.warn(`card index: chain ${this.name}: ${error.message}`),
    );
  }

  start(): void {
    if (this.loop.isRunning) return;
    // A restarted embedded node may have lost its newest blocks: look at once, not at the next poll.
    this.options.chain.node?.on('restarted', this.onNodeRestarted);
    this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.options.chain.node?.off('restarted', this.onNodeRestarted);
    await this.loop.stop();
    await this.passing;
    this.stopping = false;
  }

  /** Runs a pass now instead of at the next interval. */
  kick(): void {
    this.loop.kick();
  }

  /**
   * One pass (shared when one is already running): what the loop does each interval; callable
   * directly when the loop is not running (CLI, tests).
   */
  pass(): Promise<void> {
    this.passing ??= this.indexToHead().finally(() => {
      this.passing = undefined;
    });
    return this.passing;
  }

  /**
   * The highest block whose logs are applied for every followed contract of this chain (-1 when a
   * contract has none yet, +Infinity when there are no contracts).
   */
  async indexedBlock(): Promise<number> {
    await this.adoptDeployedContracts();
    const { lowest, contracts } = await lowestIndexedBlock(this.options.db, this.name);
    return contracts > 0 ? lowest : Number.POSITIVE_INFINITY;
  }

  /** Counts advances (applied ranges and rewinds): a reader compares it around a read (CardIndex.waitUntilIndexed). */
  get advances(): number {
    return this.advanceCount;
  }

  private advance(): void {
    this.advanceCount += 1;
    this.advanced.emit('advanced');
  }

  /** Resolves at the next applied range or rewind, or after `timeoutMs`. */
  nextAdvance(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.advanced.off('advanced', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.advanced.once('advanced', done);
    });
  }

  /** Starts following `contract` from `fromBlock` (no-op when it is followed already). */
  async follow(contract: string, fromBlock: number): Promise<void> {
    await insertIndexCursors(this.options.db, this.name, [{ contract, lastBlock: fromBlock - 1 }], Date.now());
    this.kick();
  }

  private readonly onNodeRestarted = (): void => this.kick();

  private async indexToHead(): Promise<void> {
    const { db, chain } = this.options;
    await this.adoptDeployedContracts();
    const head = Number(await chain.client.getBlockNumber({ cacheTime: 0 }));
    let cursors = await this.loadCursors();
    if (cursors.length === 0) return;
    if (await this.rewindIfForked(head, cursors)) cursors = await this.loadCursors();
    const confirmed = Number(await confirmedHeight(chain, BigInt(head)));

    // Contracts whose cursors stand on one block are read together. Only start positions (where
    // nothing was applied yet) have no hash; an applied cursor's hash was checked just above.
    const groups = new Map<number, { contracts: string[]; hash: string | null }>();
    for (const cursor of cursors) {
      const group = groups.get(cursor.lastBlock) ?? { contracts: [], hash: null };
      group.contracts.push(cursor.contract);
      group.hash ??= cursor.lastBlockHash;
      groups.set(cursor.lastBlock, group);
    }
    for (const [lastBlock, { contracts, hash }] of [...groups].sort(([a], [b]) => a - b)) {
      let fromBlock = lastBlock + 1;
      let parentHash = hash;
      while (fromBlock <= confirmed) {
        const toBlock = Math.min(confirmed, fromBlock + this.range - 1);
        const fetched = await this.fetchRange(contracts, fromBlock, toBlock, parentHash);
        // The chain moved under the read: the next pass looks for a fork before reading again.
        if (fetched.status === 'unstable') return;
        const applied = await applyTransferRange(db, {
          chain: this.name,
          contracts,
          fromBlock,
          toBlock,
          toBlockHash: fetched.toBlockHash,
          transfers: fetched.transfers,
        });
        // Another process applied it, or a rewind moved the cursors: plan again from the store next pass.
        if (!applied) return;
        if (fetched.skippedTokenIds > 0) {
          this.options.log.warn(`card index: chain ${this.name}: skipped ${fetched.skippedTokenIds} transfers of card ids above 2^53 in blocks ${fromBlock}-${toBlock}`);
        }
        this.options.events.emit('range', {
          chain: this.name,
          fromBlock,
          toBlock,
          contracts,
          transfers: fetched.transfers.length,
        });
        this.advance();
        fromBlock = toBlock + 1;
        parentHash = fetched.toBlockHash;
        if (this.stopping) return;
      }
    }
  }

  private async fetchRange(contracts: string[], fromBlock: number, toBlock: number, parentHash: string | null) {
    try {
      const fetched = await fetchTransferRange(this.options.chain.client, { contracts, fromBlock, toBlock, parentHash });
      this.range = Math.min(this.options.blockRange, this.range * 2);
      return fetched;
    } catch (error) {
      // Providers refuse wide ranges or large results in many different words: halve and retry next pass.
      if (toBlock > fromBlock) this.range = Math.max(1, Math.floor((toBlock - fromBlock + 1) / 2));
      throw error;
    }
  }

  /**
   * A fork shows as a head below an applied cursor, or an applied cursor whose block the node now
   * knows under another hash. The fork point is the newest stored block hash the node still has;
   * everything the index took from later blocks is undone (see rewindCardIndex).
   */
  private async rewindIfForked(head: number, cursors: Cursor[]): Promise<boolean> {
    const client = this.options.chain.client;
    // Every hash a cursor holds is checked: a new contract's cursor (no hash yet) can stand on the
    // block of an applied one whose hash went stale, and must not hide it.
    const held = new Map<number, Set<string>>();
    let forked = false;
    for (const cursor of cursors) {
      if (cursor.lastBlock < 0) continue;
      if (cursor.lastBlock > head) forked = true;
      const hashes = held.get(cursor.lastBlock) ?? new Set<string>();
      if (cursor.lastBlockHash !== null) hashes.add(cursor.lastBlockHash);
      held.set(cursor.lastBlock, hashes);
    }
    for (const [block, hashes] of held) {
      if (forked) break;
      if (hashes.size === 0) continue;
      const nodeHash = await blockHashAt(client, block);
      forked = [...hashes].some((hash) => hash !== nodeHash);
    }
    if (!forked) return false;

    const fork = await this.findForkPoint(head);
    const cards = await rewindCardIndex(this.options.db, this.name, fork.block, fork.hash);
    this.options.log.warn(`card index: chain ${this.name} no longer has blocks after ${fork.block}; re-indexing from there (${cards} cards to re-derive)`);
    this.options.events.emit('rewind', { chain: this.name, forkBlock: fork.block, cards });
    this.advance();
    return true;
  }

  private async findForkPoint(head: number): Promise<{ block: number; hash: string | null }> {
    const { db, chain } = this.options;
    let below = head + 1;
    for (;;) {
      const stored = await keptBlocksBelow(db, this.name, below, FORK_SEARCH_STEP);
      if (stored.length === 0) return { block: -1, hash: null };
      const hashes = await Promise.all(stored.map((row) => blockHashAt(chain.client, Number(row.block_number))));
      const index = stored.findIndex((row, position) => hashes[position] === row.block_hash);
      if (index >= 0) return { block: Number(stored[index]!.block_number), hash: stored[index]!.block_hash };
      below = Number(stored.at(-1)!.block_number);
    }
  }

  /** Every deployed card contract of this chain gets a cursor, starting at its deployment block. */
  private async adoptDeployedContracts(): Promise<void> {
    const { db } = this.options;
    const fresh = await unfollowedContracts(db, this.name);
    await insertIndexCursors(
      db,
      this.name,
      // Before the deployment there is nothing to read; an unknown block starts at genesis.
      fresh.map((row) => ({ contract: row.address, lastBlock: row.deployBlock === null ? -1 : row.deployBlock - 1 })),
      Date.now(),
    );
  }

  private async loadCursors(): Promise<Cursor[]> {
    return loadIndexCursors(this.options.db, this.name);
  }
}

type Cursor = IndexCursor;
