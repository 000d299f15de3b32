import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig, type ConfigOverrides } from '../config/config.ts';
import { openServices, type Services } from '../services.ts';
import { buildApp, type App } from '../app.ts';
import { createTestSchema } from './test-store.ts';

export { createTestSchema };

export interface TestServices extends Services {
  /** Closes everything and removes the data directory (and the PostgreSQL schema). */
  cleanup(): Promise<void>;
}

/**
 * Real services for a test: a temporary data directory, an embedded main chain (other chains off
 * unless overridden), and the store the run asks for (SQLite, or a fresh PostgreSQL schema when
 * WALLET_TEST_STORE=postgres).
 */
export async function openTestServices(overrides: ConfigOverrides = {}): Promise<TestServices> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wallet-test-'));
  const postgres = process.env.WALLET_TEST_STORE === 'postgres' ? await createTestSchema() : undefined;
  const config = loadConfig({
    env: {},
    overrides: {
      dataDir,
      port: 0,
      logLevel: 'silent',
      databaseUrl: postgres?.databaseUrl ?? null,
      chains: { ethereum: null, polygon: null },
      outbox: { pollIntervalMs: 50, rebroadcastAfterMs: 1_000 },
      ...overrides,
    },
  });
  let services: Services;
  try {
    services = await openServices(config, {
      chainMode: 'own',
      runOutbox: true,
      log: pino({ level: 'silent' }),
      ...(postgres ? { postgresSchema: postgres.schema } : {}),
    });
  } catch (error) {
    await postgres?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    ...services,
    async cleanup() {
      await services.close();
      await postgres?.drop();
      rmSync(dataDir, { recursive: true, force: true });
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
