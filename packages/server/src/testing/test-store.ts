import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStore, type Store } from '../store/database.ts';

/** The store backends a test can run against. */
export type TestStoreKind = 'sqlite' | 'postgres';

/** A store for one test and the function that closes it and removes its data. */
export interface TestStore {
  store: Store;
  cleanup(): Promise<void>;
}

/**
 * The backends available in this run: SQLite always, PostgreSQL too when TEST_DATABASE_URL is set.
 * Store tests loop over these so one run covers both.
 */
export function availableTestStoreKinds(): TestStoreKind[] {
  return process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

/**
 * Opens a fresh, migrated store: a new SQLite file in a temporary directory, or (kind 'postgres', by
 * default when WALLET_TEST_STORE=postgres) a new schema in the TEST_DATABASE_URL database.
 * cleanup() closes the store and drops the file or the schema.
 */
export async function openTestStore(
  kind: TestStoreKind = process.env.WALLET_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite',
): Promise<TestStore> {
  return kind === 'postgres' ? openPostgresTestStore() : openSqliteTestStore();
}

async function openSqliteTestStore(): Promise<TestStore> {
  const directory = mkdtempSync(join(tmpdir(), 'wallet-store-'));
  const store = await openStore({ sqlitePath: join(directory, 'store.sqlite') });
  return {
    store,
    async cleanup() {
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

async function openPostgresTestStore(): Promise<TestStore> {
  const schema = await createTestSchema();
  let store: Store;
  try {
    store = await openStore({ databaseUrl: schema.databaseUrl, postgresSchema: schema.schema, sqlitePath: '' });
  } catch (error) {
    await schema.drop();
    throw error;
  }
  return {
    store,
    async cleanup() {
      await store.close();
      await schema.drop();
    },
  };
}

/** A fresh schema in the TEST_DATABASE_URL database, for one test's store; drop() removes it. */
export async function createTestSchema(): Promise<{ databaseUrl: string; schema: string; drop(): Promise<void> }> {
  const databaseUrl = process.env.TEST_DATABASE_URL;
  if (!databaseUrl) throw new Error('WALLET_TEST_STORE=postgres needs TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)');
  // Random lower-case identifier: safe to interpolate, and parallel test files never share a schema.
  const schema = `test_${randomBytes(8).toString('hex')}`;
  await withClient(databaseUrl, (client) => client.query(`create schema ${schema}`));
  return {
    databaseUrl,
    schema,
    drop: async () => {
      await withClient(databaseUrl, (client) => client.query(`drop schema if exists ${schema} cascade`));
    },
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

/** A PostgreSQL URL whose connections use `schema` (for a child service process of a test). */
export function databaseUrlWithSchema(databaseUrl: string, schema: string): string {
  return `${databaseUrl}${databaseUrl.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}`;
}
