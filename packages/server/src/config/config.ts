/**
 * The one configuration of a process: defaults (schema.ts), then a JSON file, then environment
 * variables (env.ts), then overrides; validated once and frozen. The settings themselves are
 * described by section in chains.ts, partner-api.ts, app2app.ts and http.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import proxyAddr from '@fastify/proxy-addr';
import { Value } from 'typebox/value';
import { confirmationProblems } from './chains.ts';
import { fromEnv } from './env.ts';
import { ConfigError } from './errors.ts';
import { ConfigSchema, defaultConfig, type Config, type ConfigOverrides } from './schema.ts';
import { isScryptCost } from './scrypt-cost.ts';

export { CHAIN_NAMES, chainConfirmations, type ChainConfirmations, type ChainName, type ManagedChainSettings } from './chains.ts';
export { ConfigError } from './errors.ts';
export { ConfigSchema, defaultConfig, type ChainSettings, type Config, type ConfigOverrides } from './schema.ts';

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  /** Explicit config file; otherwise WALLET_CONFIG, then ./wallet.config.json when present. */
  file?: string;
  /** Applied last (tests, CLI flags). */
  overrides?: ConfigOverrides;
}

/**
 * Builds the one config of a process: defaults, then the JSON file, then environment variables,
 * then overrides; validated once and frozen. Throws ConfigError naming every invalid field.
 */
export function loadConfig(options: LoadConfigOptions = {}): Readonly<Config> {
  const env = options.env ?? process.env;
  let config: unknown = defaultConfig();
  const file = options.file ?? env.WALLET_CONFIG ?? (existsSync('wallet.config.json') ? 'wallet.config.json' : undefined);
  if (file) config = merge(config, readConfigFile(file));
  config = merge(config, fromEnv(env));
  if (options.overrides) config = merge(config, options.overrides);
  config = withDerivedPublicUrl(config as Config, file, env, options.overrides);

  const confirmations = confirmationProblems((config as { chains?: unknown }).chains);
  if (confirmations.length > 0) throw new ConfigError(`invalid configuration:\n${confirmations.join('\n')}`);
  if (!Value.Check(ConfigSchema, config)) {
    const problems = [...Value.Errors(ConfigSchema, config)].map(
      (e) => `  ${e.instancePath || '/'}: ${e.message}`,
    );
    throw new ConfigError(`invalid configuration:\n${[...new Set(problems)].join('\n')}`);
  }
  const valid = config as Config;
  valid.dataDir = resolve(valid.dataDir);
  try {
    new Intl.DateTimeFormat('en', { timeZone: valid.timeZone });
  } catch {
    throw new ConfigError(`invalid configuration:\n  /timeZone: unknown time zone ${valid.timeZone}`);
  }
  if (typeof valid.trustProxy === 'string') {
    // Compiled here as Fastify will compile it, so a bad value stops the start with its name.
    try {
      proxyAddr.compile(valid.trustProxy.split(',').map((entry) => entry.trim()));
    } catch (error) {
      throw new ConfigError(
        `invalid configuration:\n  /trustProxy (WALLET_TRUST_PROXY): ${(error as Error).message}; give true, false, or addresses and CIDR ranges separated by commas (loopback, 10.0.0.0/8)`,
      );
    }
  }
  if (valid.metrics.port === null && valid.metrics.token === null && !isLoopback(valid.host)) {
    throw new ConfigError(
      `invalid configuration:\n  /metrics: the service listens on ${valid.host}, so /metrics would be public; give it a port of its own (WALLET_METRICS_PORT) or a token (WALLET_METRICS_TOKEN)`,
    );
  }
  if (valid.metrics.port !== null && valid.metrics.port === valid.port) {
    throw new ConfigError(`invalid configuration:\n  /metrics/port: ${valid.metrics.port} is the service's own port; leave it null to serve /metrics there`);
  }
  if (!isScryptCost(valid.custody.scryptCost)) {
    throw new ConfigError(`invalid configuration:\n  /custody/scryptCost (WALLET_SCRYPT_COST): ${valid.custody.scryptCost} is not a power of two (1024, 2048, ... 32768, ... 1048576)`);
  }
  if (valid.partnerProgram.endsAt !== null && !isCalendarTime(valid.partnerProgram.endsAt)) {
    throw new ConfigError(`invalid configuration:\n  /partnerProgram/endsAt: not a date and time: ${valid.partnerProgram.endsAt}`);
  }
  return deepFreeze(valid);
}

/** Whether only this machine can reach an address the service listens on. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Whether an ISO 8601 date-time names a real moment: Date.parse rolls 2024-02-30 over to March 1
 * and 24:00 to the next day, so each field is checked against the calendar.
 */
function isCalendarTime(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(text);
  if (!match || Number.isNaN(Date.parse(text))) return false;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0)) as number[];
  const date = new Date(Date.UTC(year!, month! - 1, day!));
  return date.getUTCMonth() === month! - 1 && date.getUTCDate() === day && hour! < 24 && minute! < 60 && second! < 60;
}

function readConfigFile(file: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`cannot read config file ${file}: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    const kind = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`;
    throw new ConfigError(`config file ${file} must hold a JSON object of settings, not ${kind}`);
  }
  return parsed;
}

/** publicUrl follows host and port unless it was set explicitly. */
function withDerivedPublicUrl(config: Config, file: string | undefined, env: NodeJS.ProcessEnv, overrides?: ConfigOverrides): Config {
  const explicit = Boolean(env.WALLET_PUBLIC_URL || overrides?.publicUrl || (file && hasPublicUrl(file)));
  if (explicit) return config;
  return { ...config, publicUrl: derivedPublicUrl(config) };
}

/** The public URL a service listening on `host` and `port` has when none is configured. */
function derivedPublicUrl({ host, port }: Pick<Config, 'host' | 'port'>): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** Whether publicUrl was derived from host and port rather than configured. */
export function hasDerivedPublicUrl(config: Readonly<Config>): boolean {
  return config.publicUrl === derivedPublicUrl(config);
}

/**
 * The config once the service knows its port (PORT=0 picks a free one): publicUrl follows the
 * real port unless it was configured.
 */
export function withPort(config: Readonly<Config>, port: number): Readonly<Config> {
  const publicUrl = hasDerivedPublicUrl(config) ? derivedPublicUrl({ host: config.host, port }) : config.publicUrl;
  return deepFreeze({ ...structuredClone(config), port, publicUrl });
}

/** The config of a command attached to a running service: its public URL is the service's. */
export function withPublicUrl(config: Readonly<Config>, publicUrl: string): Readonly<Config> {
  return deepFreeze({ ...structuredClone(config), publicUrl });
}

function hasPublicUrl(file: string): boolean {
  const parsed = readConfigFile(file);
  return typeof parsed === 'object' && parsed !== null && 'publicUrl' in parsed;
}

function merge(base: unknown, patch: unknown): unknown {
  if (patch === undefined) return base;
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  if (base === null || typeof base !== 'object' || Array.isArray(base)) return patch;
  // A chain (or storage) setting that names its mode (kind) replaces the default one instead of mixing with it.
  if ('mode' in patch && (patch as { mode: unknown }).mode !== (base as { mode?: unknown }).mode) return patch;
  if ('kind' in patch && (patch as { kind: unknown }).kind !== (base as { kind?: unknown }).kind) return patch;
  const result: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(patch)) result[key] = merge(result[key], value);
  return result;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
