import { sql } from 'kysely';
import { databaseUrlWithSchema } from '../../testing/test-store.ts';
import type { TestServices } from '../../testing/test-services.ts';
import { main } from '../main.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Points the operator CLI, run in this process through main(), at a test installation's data (its
 * data directory, and its PostgreSQL schema when there is one), with no chain of its own to reach.
 * Returns the runner and what puts the environment back.
 */
export async function cliFor(services: TestServices): Promise<{ cli: (...args: string[]) => Promise<CliRun>; restore: () => void }> {
  const saved = { ...process.env };
  process.env.WALLET_CHAIN_ETHEREUM = 'off';
  process.env.WALLET_CHAIN_POLYGON = 'off';
  process.env.LOG_LEVEL = 'error';
  if (services.store.dialect === 'postgres') {
    const schema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(services.store.db)).rows[0]!.schema;
    process.env.DATABASE_URL = databaseUrlWithSchema(services.config.databaseUrl!, schema);
  }
  /** Runs the CLI; resolves to its exit code and what it printed. */
  async function cli(...args: string[]): Promise<CliRun> {
    const out: string[] = [];
    const err: string[] = [];
    const log = console.log;
    const error = console.error;
    console.log = (...parts: unknown[]) => out.push(parts.join(' '));
    console.error = (...parts: unknown[]) => err.push(parts.join(' '));
    try {
      const code = await main([...args, '--data-dir', services.config.dataDir]);
      return { code, stdout: out.join('\n'), stderr: err.join('\n') };
    } finally {
      console.log = log;
      console.error = error;
    }
  }
  return { cli, restore: () => (process.env = saved) };
}
