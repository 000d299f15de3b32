import type { Logger } from 'pino';
import type { CardIndex } from './card-index/index.ts';
import type { ChainRegistry } from './chain/chains.ts';
import { startMintRecovery } from './cards/mint/recovery.ts';
import { signingBuild } from './custody/transaction-signature.ts';
import type { TransactionOutbox } from './outbox/outbox.ts';
import type { Services } from './services.ts';
import type { KeyVault } from './custody/key-vault.ts';
import type { Store } from './store/database.ts';
import type { Config } from './config/config.ts';
import { startWebhookDelivery } from './webhooks/delivery.ts';
import { startIdempotencyKeyCleanup } from './partner-api/idempotency/commands.ts';

export interface BackgroundJobDeps {
  config: Readonly<Config>;
  store: Store;
  chains: ChainRegistry;
  outbox: TransactionOutbox;
  cardIndex: CardIndex;
  /** Opens the webhook signing secrets. */
  vault: Pick<KeyVault, 'openValue'>;
  log: Logger;
}

/** Running background work; stop() ends each job, the last started first. */
export interface BackgroundJobs {
  stop(): Promise<void>;
}

/**
 * Starts the work that runs beside the HTTP API where a service (or an attached CLI) runs: receipt
 * tracking and replay of unmined transactions (the outbox), the card index, mint recovery
 * (finishes mints a stopped process left half-way, cards/mint/recovery.ts), webhook delivery
 * (webhooks/delivery.ts) and the forgetting of idempotency keys older than 24 h.
 */
export async function startBackgroundJobs(deps: BackgroundJobDeps): Promise<BackgroundJobs> {
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const next of stops.reverse()) await next().catch((error: Error) => deps.log.error(error.message));
  };
  try {
    // The WebAssembly build signs at about half the native build's rate: worth knowing when the outbox is busy.
    deps.log.info(`signing transactions with libsecp256k1 (${signingBuild === 'native' ? 'native build' : `WebAssembly build: the native one has no binary for ${process.platform}-${process.arch}`})`);
    await deps.outbox.start();
    stops.push(() => deps.outbox.stop());
    deps.cardIndex.start();
    stops.push(() => deps.cardIndex.stop());
    const mintRecovery = startMintRecovery(deps);
    stops.push(() => mintRecovery.stop());
    const webhookDelivery = startWebhookDelivery(deps);
    stops.push(() => webhookDelivery.stop());
    const keyCleanup = startIdempotencyKeyCleanup(deps);
    stops.push(() => keyCleanup.stop());
  } catch (error) {
    await stop();
    throw error;
  }
  return { stop };
}

/**
 * Only the outbox: what an operator command needs to send a transaction and see it final. The
 * rest (webhook delivery above all) is the running service's work, done with its own settings: a
 * command reading a delivery log must not deliver with the command line's.
 */
export async function startTransactionTracking(deps: Pick<BackgroundJobDeps, 'outbox'>): Promise<BackgroundJobs> {
  await deps.outbox.start();
  return { stop: () => deps.outbox.stop() };
}

/** The services with their background jobs (by default all of them) started; close() stops the jobs before the rest. */
export async function withBackgroundJobs(services: Services, start: (deps: Services) => Promise<BackgroundJobs> = startBackgroundJobs): Promise<Services> {
  let jobs: BackgroundJobs;
  try {
    jobs = await start(services);
  } catch (error) {
    await services.close();
    throw error;
  }
  return {
    ...services,
    async close() {
      await jobs.stop();
      await services.close();
    },
  };
}
