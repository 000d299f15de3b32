import { join } from 'node:path';
import type { Logger } from 'pino';
import { createLogger } from './logging/logger.ts';
import { ChainRegistry } from './chain/chains.ts';
import type { Config } from './config/config.ts';
import { KeyVault } from './custody/key-vault.ts';
import { sealWebhookSecretsInClear } from './custody/sealed-values.ts';
import { openMasterKeys, wrongMasterKey, type MasterKeySource } from './custody/rotation.ts';
import { recordMasterKeyId } from './custody/store.ts';
import { WrongKeyError } from './custody/envelope.ts';
import { ensureOperator, fundOperatorOnManagedChains, type Operator } from './operator/operator.ts';
import { TransactionOutbox } from './outbox/outbox.ts';
import { CardIndex } from './card-index/index.ts';
import { openStore, type Store } from './store/database.ts';
import { makeDataDirectoryPrivate } from './lib/private-files.ts';
import { MASTER_KEY_FILE, NEXT_MASTER_KEY_FILE, PREVIOUS_MASTER_KEY_FILE } from './custody/master-key.ts';
import { MasterKeyTokenKeys } from './partner-auth/token-keys.ts';
import { openFileStorage, type FileStorage } from './storage/index.ts';
import { openMessenger, type Messenger } from './messenger/index.ts';
import { SignInThrottle } from './sign-in-guard/throttle.ts';
import { derivedIdentity, type IdentityVerifier } from './wallet-app/members/identity.ts';
import { ServiceMetrics } from './metrics/registry.ts';
import { storeAndChainCollector } from './metrics/collectors.ts';

/**
 * Everything a running service (or a CLI command) works with, opened once. Nothing runs in the
 * background until background-jobs.ts starts it.
 */
export interface Services {
  config: Readonly<Config>;
  store: Store;
  vault: KeyVault;
  chains: ChainRegistry;
  outbox: TransactionOutbox;
  /** Cards and owners from the chains' Transfer logs; indexing runs where the outbox runs. */
  cardIndex: CardIndex;
  operator: Operator;
  /** Uploaded files (A4 to A6): the data directory or an S3-compatible bucket. */
  files: FileStorage;
  /** Messages to people by phone (invites): the outbox table and the log, or a webhook (config `messenger`). */
  messenger: Messenger;
  /** Wrong-password back-off of partner and member sign-in (sign-in-guard/throttle.ts). */
  signInThrottle: SignInThrottle;
  /** HMAC keys of partner access tokens, derived from the master keys (partner-auth/token-keys.ts). */
  tokenKeys: MasterKeyTokenKeys;
  /** The identity check of wallet-app sign-up (wallet-app/members/identity.ts); the derived ci by default. */
  identity: IdentityVerifier;
  /** The Prometheus registry and its recorders (GET /metrics). */
  metrics: ServiceMetrics;
  log: Logger;
  close(): Promise<void>;
}

export interface OpenServicesOptions {
  /** `own` for the service (starts its nodes), `attach` for the CLI (uses a running service's nodes). */
  chainMode: 'own' | 'attach';
  log?: Logger;
  /** PostgreSQL schema (tests). */
  postgresSchema?: string;
}

export async function openServices(config: Readonly<Config>, options: OpenServicesOptions): Promise<Services> {
  const log = options.log ?? createLogger({ level: config.logLevel, config });
  const metrics = new ServiceMetrics();
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch((error: Error) => log.error(error.message));
  };
  try {
    // Not the master key files: one others could read is refused at load, it may have leaked.
    makeDataDirectoryPrivate(config.dataDir, log, [MASTER_KEY_FILE, NEXT_MASTER_KEY_FILE, PREVIOUS_MASTER_KEY_FILE]);
    const store = await openStore({
      databaseUrl: config.databaseUrl ?? undefined,
      sqlitePath: join(config.dataDir, 'wallet.sqlite'),
      postgresSchema: options.postgresSchema,
    });
    closers.push(() => store.close());
    const masterKeySource = { dataDir: config.dataDir, masterKeyHex: config.masterKey };
    const masterKeys = await openMasterKeys(store.db, masterKeySource);
    const vault = new KeyVault(store.db, masterKeys, { events: metrics, scryptCost: config.custody.scryptCost });
    closers.push(async () => vault.forgetUnlockedKeys());
    const operator = await ensureOperator(store.db, vault);
    await assertMasterKeyOpensStore(operator, masterKeySource);
    // From here on the store names its master key, and a service given another one is refused.
    await recordMasterKeyId(store.db, masterKeys.primaryId);
    // Webhook secrets stored in clear before migration 018 are sealed now.
    await sealWebhookSecretsInClear({ db: store.db, vault });
    const messenger = openMessenger(config.messenger, { db: store.db, log: { info: (message) => log.info(message) } });
    const tokenKeys = new MasterKeyTokenKeys(store.db, masterKeys);
    const signInThrottle = new SignInThrottle(store.db, config.partnerApi.signInThrottle, {
      scryptCost: config.custody.scryptCost,
      onThrottled: () => metrics.signInThrottled(),
    });
    const files = await openFileStorage(config);
    closers.push(() => files.close());
    const chains = await ChainRegistry.connect(config, {
      mode: options.chainMode,
      log: (message) => log.info(message),
      rpcRecorder: metrics,
    });
    closers.push(() => chains.close());
    const outbox = new TransactionOutbox({
      store,
      chains,
      pollIntervalMs: config.outbox.pollIntervalMs,
      rebroadcastAfterMs: config.outbox.rebroadcastAfterMs,
      sendWindow: config.outbox.sendWindow,
      log: { info: (message) => log.info(message), warn: (message) => log.warn(message) },
    });
    metrics.onScrape(storeAndChainCollector({ db: store.db, chains, waitingForRoom: () => outbox.waitingForRoom() }, metrics.gauges));
    await fundOperatorOnManagedChains(chains, operator, config.operator.managedBalanceCoins);
    for (const chain of chains.all()) {
      chain.node?.on('restarted', () => {
        fundOperatorOnManagedChains(chains, operator, config.operator.managedBalanceCoins).catch((error: Error) =>
          log.error(`operator funding on ${chain.name}: ${error.message}`),
        );
      });
      chain.node?.on('error', (error: Error) => log.error(error.message));
    }
    const cardIndex = new CardIndex({
      db: store.db,
      chains,
      pollIntervalMs: config.cardIndex.pollIntervalMs,
      blockRange: config.cardIndex.blockRange,
      log: { info: (message) => log.info(message), warn: (message) => log.warn(message) },
    });
    const services: Services = { config, store, vault, chains, outbox, cardIndex, operator, files, messenger, signInThrottle, tokenKeys, identity: derivedIdentity, metrics, log, close };
    return services;
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The operator's key was sealed under the master key this store was first opened with. If it does
 * not open, the key given now is another one (a wrong WALLET_MASTER_KEY, a lost or replaced
 * master.key): starting would seal new keys that the right master key could never open, and every
 * existing PIN would look wrong. Refused before anything is written.
 */
async function assertMasterKeyOpensStore(operator: Operator, source: MasterKeySource): Promise<void> {
  try {
    await operator.signer();
  } catch (error) {
    if (!(error instanceof WrongKeyError)) throw error;
    throw wrongMasterKey(source);
  }
}
