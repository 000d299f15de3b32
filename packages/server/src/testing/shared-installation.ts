/**
 * One installation run by several `wallet-service serve` processes, as docs/operations.md
 * describes it: one store (a fresh PostgreSQL schema, or a SQLite file for a single instance), a
 * chain none of them manages (external), one master key in the environment, one data directory
 * and public URL.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig, type Config } from '../config/config.ts';
import { openServices, type Services } from '../services.ts';
import { createTestSchema, databaseUrlWithSchema } from './test-store.ts';

export interface SharedInstallation {
  dataDir: string;
  /** The environment of every instance (`startService(env)`). */
  env: NodeJS.ProcessEnv;
  config: Readonly<Config>;
  postgresSchema: string | undefined;
  /** The service's parts in this process, on the same store and chain (setup, final checks); nothing runs in the background. */
  open(): Promise<Services>;
  /** Removes the data directory and the schema (stop the instances first). */
  remove(): Promise<void>;
}

export async function createSharedInstallation(options: {
  rpcUrl: string;
  chainId: number;
  store: 'sqlite' | 'postgres';
  /** The configuration file's content (WALLET_CONFIG). */
  configFile?: Record<string, unknown>;
  /** More environment for every process of the installation (e.g. WALLET_CHAIN_MAIN_CONFIRMATIONS). */
  env?: Record<string, string>;
}): Promise<SharedInstallation> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wallet-shared-'));
  const schema = options.store === 'postgres' ? await createTestSchema() : undefined;
  const remove = async () => {
    await schema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const configPath = join(dataDir, 'wallet.config.json');
    writeFileSync(configPath, JSON.stringify(options.configFile ?? {}));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      WALLET_CONFIG: configPath,
      WALLET_DATA_DIR: dataDir,
      WALLET_MASTER_KEY: randomBytes(32).toString('hex'),
      WALLET_PUBLIC_URL: 'http://wallet.shared.test',
      WALLET_CHAIN_MAIN_RPC_URL: options.rpcUrl,
      WALLET_CHAIN_MAIN_CHAIN_ID: String(options.chainId),
      WALLET_CHAIN_ETHEREUM: 'off',
      WALLET_CHAIN_POLYGON: 'off',
      PORT: '0',
      LOG_LEVEL: 'warn',
      ...options.env,
    };
    delete env.DATABASE_URL;
    if (schema) env.DATABASE_URL = databaseUrlWithSchema(schema.databaseUrl, schema.schema);
    // In this process the schema is given to the store directly (as the tests' own stores do).
    const config = loadConfig({ env: { ...env, ...(schema ? { DATABASE_URL: schema.databaseUrl } : {}) } });
    return {
      dataDir,
      env,
      config,
      postgresSchema: schema?.schema,
      open: () => openServices(config, { chainMode: 'own', log: pino({ level: 'silent' }), ...(schema ? { postgresSchema: schema.schema } : {}) }),
      remove,
    };
  } catch (error) {
    await remove();
    throw error;
  }
}
