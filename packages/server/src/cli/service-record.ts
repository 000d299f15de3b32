import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from '../chain/managed-node.ts';
import { hasDerivedPublicUrl, withPublicUrl, type Config } from '../config/config.ts';
import { makePrivateDirectory, PRIVATE_FILE_MODE } from '../lib/private-files.ts';

/**
 * What a running service writes to its data directory: its process and the public URL it serves,
 * so that a second `serve` on the same directory is refused, and commands run beside it (`partner
 * approve` writes this URL into card contracts) use the URL it really has.
 */
interface ServiceRecord {
  pid: number;
  publicUrl: string;
  startedAt: string;
}

function recordPath(dataDir: string): string {
  return join(dataDir, 'service.json');
}

function readRecord(dataDir: string): ServiceRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(recordPath(dataDir), 'utf8')) as ServiceRecord;
    return Number.isInteger(record.pid) && typeof record.publicUrl === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}

/** The live service of a data directory, if one runs. */
function runningService(dataDir: string): ServiceRecord | undefined {
  const record = readRecord(dataDir);
  return record && record.pid !== process.pid && isAlive(record.pid) ? record : undefined;
}

/**
 * Several instances may share a data directory (its uploaded files, the public URL) when they
 * share nothing that only one process may run: the store is PostgreSQL and no chain is an
 * embedded node of this directory.
 */
export function allowsSeveralInstances(config: Readonly<Config>): boolean {
  return Boolean(config.databaseUrl) && Object.values(config.chains).every((chain) => chain === null || chain.mode !== 'managed');
}

/**
 * Takes the data directory for this process, before anything starts: refused while another live
 * service holds it (a record left by a killed one is replaced). Returns the release function.
 * Instances that may share the directory (allowsSeveralInstances) take nothing.
 */
export function claimDataDir(config: Readonly<Config>): { release(): void } {
  makePrivateDirectory(config.dataDir);
  if (allowsSeveralInstances(config)) return { release: () => {} };
  const record = JSON.stringify({ pid: process.pid, publicUrl: config.publicUrl, startedAt: new Date().toISOString() } satisfies ServiceRecord);
  try {
    writeFileSync(recordPath(config.dataDir), record, { flag: 'wx', mode: PRIVATE_FILE_MODE });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const other = runningService(config.dataDir);
    if (other) {
      throw new Error(`another wallet service (pid ${other.pid}, ${other.publicUrl}) runs on the data directory ${config.dataDir}; stop it first`);
    }
    writeFileSync(recordPath(config.dataDir), record, { mode: PRIVATE_FILE_MODE });
  }
  return {
    release: () => {
      if (readRecord(config.dataDir)?.pid === process.pid) rmSync(recordPath(config.dataDir), { force: true });
    },
  };
}

/** A command beside a running service takes the service's public URL, unless one is configured. */
export function withRunningServiceUrl(config: Readonly<Config>): Readonly<Config> {
  const service = runningService(config.dataDir);
  return service && hasDerivedPublicUrl(config) ? withPublicUrl(config, service.publicUrl) : config;
}
