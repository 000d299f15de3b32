import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Type, { type Static } from 'typebox';
import { Value } from 'typebox/value';

/** The three chain names the API accepts (`chain` of prepare and of the card query). */
export const CHAIN_NAMES = ['main', 'ethereum', 'polygon'] as const;
export type ChainName = (typeof CHAIN_NAMES)[number];

const MessagePrefix = Type.String({ minLength: 1, description: 'Prefix of sign_message: prefix + decimal byte length + message' });

const ManagedChain = Type.Object(
  {
    mode: Type.Literal('managed'),
    chainId: Type.Integer({ minimum: 1 }),
    messagePrefix: MessagePrefix,
    /** Loopback port of the node; 0 picks a free one at each start. */
    rpcPort: Type.Integer({ minimum: 0, maximum: 65535 }),
    /** Seconds between blocks; 0 mines each transaction at once. */
    blockTimeSeconds: Type.Integer({ minimum: 0 }),
    /** Seconds between state dumps of the node to the data directory. */
    stateIntervalSeconds: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false },
);

const ExternalChain = Type.Object(
  {
    mode: Type.Literal('external'),
    rpcUrl: Type.String({ pattern: '^(https?|wss?)://' }),
    chainId: Type.Integer({ minimum: 1 }),
    messagePrefix: MessagePrefix,
  },
  { additionalProperties: false },
);

const ChainSetting = Type.Union([ManagedChain, ExternalChain, Type.Null()]);

export const ConfigSchema = Type.Object(
  {
    host: Type.String({ minLength: 1 }),
    port: Type.Integer({ minimum: 0, maximum: 65535 }),
    /** Base URL that clients reach the service at; used in card URIs and links. */
    publicUrl: Type.String({ pattern: '^https?://' }),
    dataDir: Type.String({ minLength: 1 }),
    databaseUrl: Type.Union([Type.String({ pattern: '^postgres(ql)?://' }), Type.Null()]),
    /** 32-byte master key as 64 hex characters; when null it is created in the data directory. */
    masterKey: Type.Union([Type.String({ pattern: '^[0-9a-fA-F]{64}$' }), Type.Null()]),
    logLevel: Type.Union([
      Type.Literal('fatal'),
      Type.Literal('error'),
      Type.Literal('warn'),
      Type.Literal('info'),
      Type.Literal('debug'),
      Type.Literal('trace'),
      Type.Literal('silent'),
    ]),
    /** IANA time zone of monthly and daily limits. */
    timeZone: Type.String({ minLength: 1 }),
    /** ISO 3166 country assumed for phone numbers written without a country code. */
    phoneDefaultCountry: Type.String({ pattern: '^[A-Z]{2}$' }),
    chains: Type.Object(
      { main: ChainSetting, ethereum: ChainSetting, polygon: ChainSetting },
      { additionalProperties: false },
    ),
    operator: Type.Object(
      {
        /** On managed chains the operator account is topped up to this many coins at start. */
        managedBalanceCoins: Type.Integer({ minimum: 1 }),
        /** Coins sent to a partner's account when it is approved, so it can pay for its mints. */
        partnerFundingCoins: Type.Number({ minimum: 0 }),
      },
      { additionalProperties: false },
    ),
    partners: Type.Object(
      { defaultMintLimit: Type.Integer({ minimum: 0 }) },
      { additionalProperties: false },
    ),
    outbox: Type.Object(
      {
        /** How often unmined transactions are checked for receipts. */
        pollIntervalMs: Type.Integer({ minimum: 10 }),
        /** A transaction with no receipt after this long is broadcast again (same bytes). */
        rebroadcastAfterMs: Type.Integer({ minimum: 100 }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof ConfigSchema>;
export type ChainSettings = NonNullable<Config['chains'][ChainName]>;
export type ManagedChainSettings = Static<typeof ManagedChain>;

const MAIN_MESSAGE_PREFIX = '\x19Main Signed Message:\n';
const ETHEREUM_MESSAGE_PREFIX = '\x19Ethereum Signed Message:\n';

function managed(chainId: number, messagePrefix: string): ManagedChainSettings {
  return { mode: 'managed', chainId, messagePrefix, rpcPort: 0, blockTimeSeconds: 0, stateIntervalSeconds: 1 };
}

/** The embedded defaults: everything on this machine, nothing to set up. */
export function defaultConfig(): Config {
  return {
    host: '127.0.0.1',
    port: 3000,
    publicUrl: 'http://127.0.0.1:3000',
    dataDir: './data',
    databaseUrl: null,
    masterKey: null,
    logLevel: 'info',
    timeZone: 'UTC',
    phoneDefaultCountry: 'US',
    chains: {
      main: managed(31337, MAIN_MESSAGE_PREFIX),
      ethereum: managed(31338, ETHEREUM_MESSAGE_PREFIX),
      polygon: managed(31339, ETHEREUM_MESSAGE_PREFIX),
    },
    operator: { managedBalanceCoins: 1_000_000, partnerFundingCoins: 10 },
    partners: { defaultMintLimit: 10_000 },
    outbox: { pollIntervalMs: 200, rebroadcastAfterMs: 5_000 },
  };
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object | null ? DeepPartial<NonNullable<T[K]>> | null : T[K] };
export type ConfigOverrides = DeepPartial<Config>;

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
  return deepFreeze(valid);
}

function readConfigFile(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`cannot read config file ${file}: ${(error as Error).message}`);
  }
}

function fromEnv(env: NodeJS.ProcessEnv): ConfigOverrides {
  const result: Record<string, unknown> = {};
  if (env.HOST) result.host = env.HOST;
  if (env.PORT) result.port = toNumber(env.PORT, 'PORT');
  if (env.WALLET_PUBLIC_URL) result.publicUrl = env.WALLET_PUBLIC_URL;
  if (env.WALLET_DATA_DIR) result.dataDir = env.WALLET_DATA_DIR;
  if (env.DATABASE_URL) result.databaseUrl = env.DATABASE_URL;
  if (env.WALLET_MASTER_KEY) result.masterKey = env.WALLET_MASTER_KEY;
  if (env.LOG_LEVEL) result.logLevel = env.LOG_LEVEL;
  if (env.WALLET_TIME_ZONE) result.timeZone = env.WALLET_TIME_ZONE;
  if (env.WALLET_PHONE_DEFAULT_COUNTRY) result.phoneDefaultCountry = env.WALLET_PHONE_DEFAULT_COUNTRY;
  const chains: Record<string, unknown> = {};
  for (const name of CHAIN_NAMES) {
    const prefix = `WALLET_CHAIN_${name.toUpperCase()}`;
    if (env[prefix] === 'off') chains[name] = null;
    const rpcUrl = env[`${prefix}_RPC_URL`];
    if (rpcUrl) {
      chains[name] = {
        mode: 'external',
        rpcUrl,
        chainId: toNumber(env[`${prefix}_CHAIN_ID`] ?? '', `${prefix}_CHAIN_ID`),
        messagePrefix: env[`${prefix}_MESSAGE_PREFIX`] ?? (name === 'main' ? MAIN_MESSAGE_PREFIX : ETHEREUM_MESSAGE_PREFIX),
      };
    }
  }
  if (Object.keys(chains).length > 0) result.chains = chains;
  return result as ConfigOverrides;
}

function toNumber(value: string, name: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number)) throw new ConfigError(`invalid configuration:\n  ${name}: not a number`);
  return number;
}

/** publicUrl follows host and port unless it was set explicitly. */
function withDerivedPublicUrl(config: Config, file: string | undefined, env: NodeJS.ProcessEnv, overrides?: ConfigOverrides): Config {
  const explicit = Boolean(env.WALLET_PUBLIC_URL || overrides?.publicUrl || (file && hasPublicUrl(file)));
  if (explicit) return config;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return { ...config, publicUrl: `http://${host.includes(':') ? `[${host}]` : host}:${config.port}` };
}

function hasPublicUrl(file: string): boolean {
  const parsed = readConfigFile(file);
  return typeof parsed === 'object' && parsed !== null && 'publicUrl' in parsed;
}

function merge(base: unknown, patch: unknown): unknown {
  if (patch === undefined) return base;
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  if (base === null || typeof base !== 'object' || Array.isArray(base)) return patch;
  // A chain setting that names its mode replaces the default one instead of mixing with it.
  if ('mode' in patch && (patch as { mode: unknown }).mode !== (base as { mode?: unknown }).mode) return patch;
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
