import type { Store } from '../../store/database.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { TransactionOutbox } from '../../outbox/outbox.ts';
import type { Logger } from 'pino';
import { epochSeconds } from '../../store/database.ts';
import { PollingLoop } from '../../lib/polling-loop.ts';
import { failBatch, mintIdempotencyKey, settleMintBatch } from './commands.ts';
import { listBatchesInStatus, markBatchSubmitted } from './store.ts';

/** A batch still `reserved` this long after it was stored was never signed: its mint call ended (a crash) before it. */
export const ABANDONED_BATCH_SECONDS = 600;
const RECOVERY_INTERVAL_MS = 30_000;
const BATCHES_PER_PASS = 200;

/**
 * Finishes what a mint call left when its process stopped part of the way. A `reserved` batch whose
 * transaction reached the outbox becomes `submitted`; one that never did, after
 * ABANDONED_BATCH_SECONDS, becomes `failed` and its cards are given back to mint_count (they can
 * no longer be signed: the PIN is gone with the call). A `submitted` batch whose transaction is
 * final becomes `minted` or `failed`. Every move is guarded, so two processes doing this agree.
 */
export async function recoverMintBatches(deps: { store: Store; chains: ChainRegistry; outbox: TransactionOutbox }, now = new Date()): Promise<{ minted: number; failed: number }> {
  const db = deps.store.db;
  const counts = { minted: 0, failed: 0 };
  const reserved = await listBatchesInStatus(db, 'reserved', BATCHES_PER_PASS);
  for (const batch of reserved) {
    const transaction = await deps.outbox.findByIdempotencyKey(mintIdempotencyKey(batch.id));
    if (transaction) {
      await markBatchSubmitted(db, batch.id, transaction, epochSeconds(now));
    } else if (Number(batch.created_at) <= epochSeconds(now) - ABANDONED_BATCH_SECONDS) {
      await failBatch(deps, batch, 'not sent: the mint call ended before this batch was signed');
      counts.failed += 1;
    }
  }
  const submitted = await listBatchesInStatus(db, 'submitted', BATCHES_PER_PASS);
  for (const batch of submitted) {
    const transaction = batch.outbox_id ? await deps.outbox.findById(batch.outbox_id) : undefined;
    if (transaction?.status !== 'mined' && transaction?.status !== 'failed') continue;
    const settled = await settleMintBatch(deps, batch, 0);
    if (settled.status === 'minted') counts.minted += 1;
    else counts.failed += 1;
  }
  return counts;
}

/** Runs recoverMintBatches at start and every 30 s, where the outbox runs. */
export function startMintRecovery(deps: { store: Store; chains: ChainRegistry; outbox: TransactionOutbox; log: Logger }): PollingLoop {
  const loop = new PollingLoop(
    async () => {
      await recoverMintBatches(deps);
    },
    RECOVERY_INTERVAL_MS,
    (error) => deps.log.warn(`mint recovery: ${error.message}`),
  );
  loop.start();
  return loop;
}
