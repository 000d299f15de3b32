import { chmodSync, copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { PRIVATE_FILE_MODE } from '../lib/private-files.ts';
import { Worker } from 'node:worker_threads';

/** The parts of anvil's state file (`--state`) that tell whether it is whole. */
interface StateDump {
  best_block_number?: string | number;
  accounts?: Record<string, { nonce?: number; code?: string }>;
  blocks?: Array<{ header?: { number?: string } }>;
  transactions?: Array<{ info?: { from?: string; nonce?: number }; block_number?: number | string }>;
}

/**
 * Why a state dump cannot be restarted from, or undefined when it is whole.
 *
 * anvil reads a dump's blocks and transactions first and its accounts afterwards, each under its
 * own lock, so a dump taken while a block is mined can hold that block's effects (nonces, balances,
 * storage) without the block, its transactions or its logs. A node restarted from it has
 * transactions that happened and can never be found: their receipts and events are gone, and the
 * outbox would count their nonces as taken by someone else. Such a dump shows as an account that
 * sends transactions (no code) whose nonce is past its last transaction in the dump, a transaction
 * whose block the dump lacks (mined between the reads of the blocks and of the transactions), or a
 * block beyond the best block.
 */
export function tornDumpReason(dump: StateDump): string | undefined {
  const lastNonce = new Map<string, number>();
  for (const transaction of dump.transactions ?? []) {
    const from = transaction.info?.from?.toLowerCase();
    const nonce = transaction.info?.nonce;
    if (from === undefined || nonce === undefined) continue;
    lastNonce.set(from, Math.max(lastNonce.get(from) ?? -1, nonce));
  }
  const ahead: string[] = [];
  for (const [address, account] of Object.entries(dump.accounts ?? {})) {
    // Contracts count their creations in their nonce, with no transaction of their own.
    if (account.code !== undefined && account.code !== '0x') continue;
    const nonce = account.nonce ?? 0;
    if (nonce > (lastNonce.get(address.toLowerCase()) ?? -1) + 1) ahead.push(address);
  }
  if (ahead.length > 0) return `the state of ${ahead.length} account(s) (${ahead.slice(0, 3).join(', ')}) is ahead of the dump's transactions`;
  if (dump.blocks !== undefined) {
    const numbers = new Set(dump.blocks.flatMap((block) => (block.header?.number !== undefined ? [BigInt(block.header.number)] : [])));
    const orphan = (dump.transactions ?? []).find((transaction) => transaction.block_number !== undefined && !numbers.has(BigInt(transaction.block_number)));
    if (orphan) return `it holds a transaction of block ${orphan.block_number} without the block`;
  }
  if (dump.best_block_number !== undefined && dump.blocks !== undefined) {
    const best = BigInt(dump.best_block_number);
    const beyond = dump.blocks.some((block) => block.header?.number !== undefined && BigInt(block.header.number) > best);
    if (beyond) return `it holds blocks beyond its best block ${best}`;
  }
  return undefined;
}

/** How often a running node's latest dump is checked and, when whole, kept as the copy to restart from. */
export const WHOLE_COPY_INTERVAL_MS = 2_000;

/**
 * Before a node starts from `statePath`: a whole dump is copied beside it (`.previous`); a dump cut
 * off by a kill, or torn (tornDumpReason), is replaced by that copy, which is whole, so the node
 * starts without effects it cannot show and the outbox replays what the copy lacks (a few seconds
 * of blocks, since WholeCopyKeeper refreshes the copy while the node runs). With no copy, a cut-off
 * dump is dropped (anvil refuses it) and a torn one is kept.
 */
export function keepWholeStateDump(statePath: string, log: (message: string) => void): void {
  if (!existsSync(statePath)) return;
  let torn: string | undefined;
  try {
    torn = tornDumpReason(JSON.parse(readFileSync(statePath, 'utf8')) as StateDump);
  } catch {
    restorePreviousStateDump(statePath);
    return;
  }
  if (torn === undefined) {
    copyPrivately(statePath, `${statePath}.previous`);
  } else if (existsSync(`${statePath}.previous`)) {
    log(`the last state dump was taken while a block was mined (${torn}); restarting from the previous copy`);
    restorePreviousStateDump(statePath);
  } else {
    log(`the last state dump was taken while a block was mined (${torn}) and there is no earlier copy; restarting from it`);
  }
}

/** Puts the last whole dump back, or drops the state when there is none. */
export function restorePreviousStateDump(statePath: string): void {
  const backup = `${statePath}.previous`;
  if (existsSync(backup)) copyPrivately(backup, statePath);
  else rmSync(statePath, { force: true });
}

/** A copy of a state dump, owner-only whatever the source's mode was. */
function copyPrivately(from: string, to: string): void {
  copyFileSync(from, to);
  chmodSync(to, PRIVATE_FILE_MODE);
}

/**
 * While a node runs, copies each new dump of `statePath` that is whole to `.previous` (written
 * aside and renamed, so the copy is always whole), so that a restart after a torn dump goes back a
 * few seconds, not to the node's start. Reading and parsing a large state takes a while, so it is
 * done in a worker thread, off the service's event loop, and less often the longer it takes. The
 * worker runs tornDumpReason's own source (it uses built-ins only).
 */
export class WholeCopyKeeper {
  readonly #worker: Worker;

  constructor(statePath: string, intervalMs = WHOLE_COPY_INTERVAL_MS) {
    const source = `
      const { readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
      const { workerData } = require('node:worker_threads');
      const __name = (target) => target;
      const tornDumpReason = ${tornDumpReason.toString()};
      let copied = 0;
      const check = () => {
        const started = Date.now();
        try {
          const modified = statSync(workerData.statePath).mtimeMs;
          if (modified !== copied) {
            const text = readFileSync(workerData.statePath, 'utf8');
            if (tornDumpReason(JSON.parse(text)) === undefined) {
              const aside = workerData.statePath + '.previous.' + process.pid + '.tmp';
              writeFileSync(aside, text, { mode: 0o600 });
              renameSync(aside, workerData.statePath + '.previous');
              copied = modified;
            }
          }
        } catch {
          // Being written, or gone: the next check reads it again.
        }
        // A large state takes a while to read: checks then come further apart, a tenth of a core at most.
        setTimeout(check, Math.max(workerData.intervalMs, 10 * (Date.now() - started)));
      };
      setTimeout(check, workerData.intervalMs);
    `;
    // Plain JavaScript: no loader of the parent's (execArgv), so it starts at once.
    this.#worker = new Worker(source, { eval: true, workerData: { statePath, intervalMs }, execArgv: [] });
    this.#worker.unref();
  }

  async close(): Promise<void> {
    await this.#worker.terminate();
  }
}
