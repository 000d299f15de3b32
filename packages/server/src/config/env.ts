/** The environment variables the configuration reads (docs/configuration.md lists them). */
import { CHAIN_NAMES, ETHEREUM_MESSAGE_PREFIX, MAIN_MESSAGE_PREFIX } from './chains.ts';
import { ConfigError } from './errors.ts';
import type { ConfigOverrides } from './schema.ts';

export function fromEnv(env: NodeJS.ProcessEnv): ConfigOverrides {
  const result: Record<string, unknown> = {};
  if (env.HOST) result.host = env.HOST;
  if (env.PORT) result.port = toNumber(env.PORT, 'PORT');
  if (env.WALLET_PUBLIC_URL) result.publicUrl = env.WALLET_PUBLIC_URL;
  if (env.WALLET_TRUST_PROXY) result.trustProxy = env.WALLET_TRUST_PROXY === 'true' ? true : env.WALLET_TRUST_PROXY === 'false' ? false : env.WALLET_TRUST_PROXY;
  if (env.WALLET_DATA_DIR) result.dataDir = env.WALLET_DATA_DIR;
  if (env.DATABASE_URL) result.databaseUrl = env.DATABASE_URL;
  if (env.WALLET_MASTER_KEY) result.masterKey = env.WALLET_MASTER_KEY;
  if (env.LOG_LEVEL) result.logLevel = env.LOG_LEVEL;
  if (env.WALLET_TIME_ZONE) result.timeZone = env.WALLET_TIME_ZONE;
  if (env.WALLET_PHONE_DEFAULT_COUNTRY) result.phoneDefaultCountry = env.WALLET_PHONE_DEFAULT_COUNTRY;
  if (env.WALLET_SCRYPT_COST) result.custody = { scryptCost: toNumber(env.WALLET_SCRYPT_COST, 'WALLET_SCRYPT_COST') };
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
    const confirmations = env[`${prefix}_CONFIRMATIONS`];
    if (confirmations && chains[name] !== null) {
      chains[name] = { ...(chains[name] as object | undefined), confirmations: toConfirmations(confirmations, `${prefix}_CONFIRMATIONS`) };
    }
  }
  if (Object.keys(chains).length > 0) result.chains = chains;
  if (env.WALLET_METRICS_PORT || env.WALLET_METRICS_TOKEN || env.WALLET_METRICS_HOST) {
    result.metrics = {
      ...(env.WALLET_METRICS_PORT ? { port: toNumber(env.WALLET_METRICS_PORT, 'WALLET_METRICS_PORT') } : {}),
      ...(env.WALLET_METRICS_HOST ? { host: env.WALLET_METRICS_HOST } : {}),
      ...(env.WALLET_METRICS_TOKEN ? { token: env.WALLET_METRICS_TOKEN } : {}),
    };
  }
  if (env.WALLET_PARTNER_PROGRAM_ENDS_AT) {
    result.partnerProgram = { endsAt: env.WALLET_PARTNER_PROGRAM_ENDS_AT === 'never' ? null : env.WALLET_PARTNER_PROGRAM_ENDS_AT };
  }
  if (env.WALLET_S3_BUCKET) {
    result.storage = {
      kind: 's3',
      bucket: env.WALLET_S3_BUCKET,
      region: env.WALLET_S3_REGION ?? 'us-east-1',
      ...(env.WALLET_S3_ENDPOINT ? { endpoint: env.WALLET_S3_ENDPOINT } : {}),
      ...(env.WALLET_S3_FORCE_PATH_STYLE ? { forcePathStyle: env.WALLET_S3_FORCE_PATH_STYLE === 'true' } : {}),
      ...(env.WALLET_S3_PUBLIC_BASE_URL ? { publicBaseUrl: env.WALLET_S3_PUBLIC_BASE_URL } : {}),
    };
  }
  return result as ConfigOverrides;
}

/** `safe`, `finalized` or a number of blocks. */
function toConfirmations(value: string, name: string): unknown {
  if (value === 'safe' || value === 'finalized') return { tag: value };
  if (/^\d+$/.test(value.trim())) return { depth: Number(value) };
  throw new ConfigError(`invalid configuration:\n  ${name}: give a number of blocks (0 to 1000), safe or finalized, not ${value}`);
}

function toNumber(value: string, name: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number)) throw new ConfigError(`invalid configuration:\n  ${name}: not a number`);
  return number;
}
