import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { loadConfig, type ConfigOverrides } from '../config/config.ts';
import { openServices, type Services } from '../services.ts';

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

/** A fresh schema in the TEST_DATABASE_URL database, for one test's store. */
export async function createTestSchema(): Promise<{ databaseUrl: string; schema: string; drop(): Promise<void> }> {
  const databaseUrl = process.env.TEST_DATABASE_URL;
  if (!databaseUrl) throw new Error('WALLET_TEST_STORE=postgres needs TEST_DATABASE_URL');
  const schema = `test_${randomBytes(8).toString('hex')}`;
  await withClient(databaseUrl, (client) => client.query(`create schema ${schema}`));
  return {
    databaseUrl,
    schema,
    drop: () => withClient(databaseUrl, (client) => client.query(`drop schema if exists ${schema} cascade`)).then(() => {}),
  };
}

async function withClient<T>(connectionString: string, action: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end();
  }
}
