import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { loadConfig, type Config, type ConfigOverrides } from '../config/config.ts';
import { openServices, type Services } from '../services.ts';
import { withBackgroundJobs } from '../background-jobs.ts';
import { buildApp, type App } from '../app.ts';
import { createTestSchema } from './test-store.ts';
import { RATE_LIMIT_GROUPS } from '../http/rate-limit/limits.ts';

export { createTestSchema };

export interface TestServices extends Services {
  /** Closes everything and removes the data directory (and the PostgreSQL schema). */
  cleanup(): Promise<void>;
}

/** A test's data directory and store, which services can be opened on, closed and opened again. */
export interface TestInstallation {
  dataDir: string;
  /** The PostgreSQL schema of this installation (WALLET_TEST_STORE=postgres), else undefined. */
  postgresSchema: string | undefined;
  config: Readonly<Config>;
  /** Opens the service's parts on this installation (the embedded node keeps its state between opens). */
  open(log?: Logger): Promise<Services>;
  /** Removes the data directory and the PostgreSQL schema (close the services first). */
  remove(): Promise<void>;
}

/**
 * A temporary data directory with an embedded main chain (other chains off unless overridden) and
 * the store the run asks for: SQLite, or a fresh PostgreSQL schema when WALLET_TEST_STORE=postgres.
 */
export async function createTestInstallation(overrides: ConfigOverrides = {}): Promise<TestInstallation> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wallet-test-'));
  const postgres = process.env.WALLET_TEST_STORE === 'postgres' ? await createTestSchema() : undefined;
  const remove = async () => {
    await postgres?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  let config: Readonly<Config>;
  try {
    config = loadConfig({
      // npm test's cheaper scrypt for passwords and PINs (scripts/run-tests.mjs), as its child processes have it.
      env: { WALLET_SCRYPT_COST: process.env.WALLET_SCRYPT_COST },
      overrides: {
        dataDir,
        port: 0,
        logLevel: 'silent',
        databaseUrl: postgres?.databaseUrl ?? null,
        chains: { ethereum: null, polygon: null },
        outbox: { pollIntervalMs: 50, rebroadcastAfterMs: 1_000 },
        // Tests call from one address far more often than a client would; the limits' own tests set theirs.
        http: { rateLimits: Object.fromEntries(RATE_LIMIT_GROUPS.map((group) => [group, { max: 1_000_000 }])) },
        ...overrides,
      },
    });
  } catch (error) {
    await remove();
    throw error;
  }
  return {
    dataDir,
    postgresSchema: postgres?.schema,
    config,
    open: async (log = pino({ level: 'silent' })) =>
      withBackgroundJobs(await openServices(config, { chainMode: 'own', log, ...(postgres ? { postgresSchema: postgres.schema } : {}) })),
    remove,
  };
}

/** Real services for a test on a fresh installation; cleanup() closes them and removes it. */
export async function openTestServices(overrides: ConfigOverrides = {}): Promise<TestServices> {
  const installation = await createTestInstallation(overrides);
  let services: Services;
  try {
    services = await installation.open();
  } catch (error) {
    await installation.remove();
    throw error;
  }
  return {
    ...services,
    async cleanup() {
      await services.close();
      await installation.remove();
    },
  };
}

export interface TestApp {
  services: TestServices;
  app: App;
  /** Closes the app, then the services. */
  cleanup(): Promise<void>;
}

/** Real services and the HTTP app over them, for `app.inject()` tests. */
export async function openTestApp(overrides: ConfigOverrides = {}): Promise<TestApp> {
  const services = await openTestServices(overrides);
  try {
    const app = await buildApp({ services });
    return {
      services,
      app,
      async cleanup() {
        await app.close();
        await services.cleanup();
      },
    };
  } catch (error) {
    await services.cleanup();
    throw error;
  }
}
