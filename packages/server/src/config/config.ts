import { existsSync, readFileSync } from 'node:fs';
import proxyAddr from '@fastify/proxy-addr';
import { resolve } from 'node:path';
import Type, { type Static } from 'typebox';
import { Value } from 'typebox/value';
import { secret, secretUrl } from '../lib/secret.ts';

/** The three chain names the API accepts (`chain` of prepare and of the card query). */
export const CHAIN_NAMES = ['main', 'ethereum', 'polygon'] as const;
export type ChainName = (typeof CHAIN_NAMES)[number];

/** ISO 8601 date and time with an explicit offset (Z or +hh:mm): a closing time must not depend on the host's zone. */
const ISO_DATE_TIME_WITH_OFFSET = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$';

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
    rpcUrl: secretUrl(Type.String({ pattern: '^(https?|wss?)://' })),
    chainId: Type.Integer({ minimum: 1 }),
    messagePrefix: MessagePrefix,
  },
  { additionalProperties: false },
);

const ChainSetting = Type.Union([ManagedChain, ExternalChain, Type.Null()]);

/** Where App2App links send the user: the wallet's web host and its mobile app. */
const A2aLinks = Type.Object(
  {
    /** Web host of the wallet (universal links, QR codes); null: this service's publicUrl. */
    webUrl: Type.Union([Type.String({ pattern: '^https?://' }), Type.Null()]),
    appScheme: Type.String({ pattern: '^[a-z][a-z0-9+.-]*$' }),
    appHost: Type.String({ minLength: 1 }),
    appPackage: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);

/** A per-address rate limit: `max` requests per `timeWindowMs`; `acrossInstances` counts in the store (every process shares it). */
const RateLimit = Type.Object(
  { max: Type.Integer({ minimum: 1 }), timeWindowMs: Type.Integer({ minimum: 1 }), acrossInstances: Type.Boolean() },
  { additionalProperties: false },
);

export const ConfigSchema = Type.Object(
  {
    host: Type.String({ minLength: 1 }),
    port: Type.Integer({ minimum: 0, maximum: 65535 }),
    /**
     * Behind a reverse proxy: true trusts X-Forwarded-For from any hop, a string lists the proxy
     * addresses/CIDRs to trust. Rate limits and sign-in back-off count the client address it yields.
     */
    trustProxy: Type.Union([Type.Boolean(), Type.String({ minLength: 1 })]),
    /** Base URL that clients reach the service at; used in card URIs and links. */
    publicUrl: Type.String({ pattern: '^https?://' }),
    dataDir: Type.String({ minLength: 1 }),
    databaseUrl: secretUrl(Type.Union([Type.String({ pattern: '^postgres(ql)?://' }), Type.Null()])),
    /** 32-byte master key as 64 hex characters; when null it is created in the data directory. */
    masterKey: secret(Type.Union([Type.String({ pattern: '^[0-9a-fA-F]{64}$' }), Type.Null()])),
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
        /** /health/ready answers 503 while a transaction has waited this long for its receipt. */
        stuckAfterSeconds: Type.Integer({ minimum: 1 }),
      },
      { additionalProperties: false },
    ),
    cards: Type.Object(
      {
        /** Most recipients one A7 or A8 call may name. */
        maxRecipients: Type.Integer({ minimum: 1, maximum: 10_000 }),
        /** Most cards per mint transaction (fewer when the block gas limit needs it). */
        maxBatchSize: Type.Integer({ minimum: 1 }),
        /** How long A7, A8, A10, A11 and A14 wait for their transactions to be mined before answering 503. */
        confirmTimeoutMs: Type.Integer({ minimum: 100 }),
        /** The guarded fetch of a card's status_url for its holder (outbound/guarded-fetch.ts). */
        statusUrl: Type.Object(
          {
            timeoutMs: Type.Integer({ minimum: 100, maximum: 60_000 }),
            maxBytes: Type.Integer({ minimum: 1_024, maximum: 10 * 1024 * 1024 }),
            maxRedirects: Type.Integer({ minimum: 0, maximum: 10 }),
            allowPrivateAddresses: Type.Boolean(),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
    /** Partner webhooks (webhooks/, docs/webhooks.md). */
    webhooks: Type.Object(
      {
        /** How often the delivery worker looks for messages due. */
        pollIntervalMs: Type.Integer({ minimum: 10 }),
        /** Waits after each failed attempt; after the last one the message is given up. */
        retryDelaysMs: Type.Array(Type.Integer({ minimum: 0 }), { minItems: 1, maxItems: 50 }),
        /** One attempt, connection to answer. */
        timeoutMs: Type.Integer({ minimum: 100, maximum: 60_000 }),
        /** How long a message that failed (or waits for its transaction) holds back the endpoint's later messages about other subjects. */
        holdLaterMessagesMs: Type.Integer({ minimum: 0, maximum: 3_600_000 }),
        /** Let endpoints be on loopback, private and link-local addresses (closed networks, tests). */
        allowPrivateAddresses: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
    cardIndex: Type.Object(
      {
        /** How often each chain is polled for new blocks with Transfer logs of card contracts. */
        pollIntervalMs: Type.Integer({ minimum: 10 }),
        /** Most blocks one eth_getLogs call covers (many providers cap it). */
        blockRange: Type.Integer({ minimum: 1 }),
      },
      { additionalProperties: false },
    ),
    a2a: Type.Object(
      {
        /** Seconds from prepare to expiration_time. */
        requestLifetimeSeconds: Type.Integer({ minimum: 1 }),
        /** Seconds a finished (or expired) request stays readable before it answers 6000. */
        resultRetentionSeconds: Type.Integer({ minimum: 1 }),
        /** execute_contract approvals per member and day (time zone `timeZone`); 0: no limit. */
        executeContractDailyLimit: Type.Integer({ minimum: 0 }),
        /** How often a long-poll of result re-reads the store for changes made by other processes. */
        resultPollIntervalMs: Type.Integer({ minimum: 10 }),
        /** Coins the operator sends a new fee payer on an embedded chain. */
        feePayerFundingCoins: Type.Number({ minimum: 0 }),
        links: A2aLinks,
        globalLinks: A2aLinks,
        /** symbol_img of the card query, by lower-case contract address. */
        cardImages: Type.Record(Type.String(), Type.String()),
      },
      { additionalProperties: false },
    ),
    /** Invites to people who are not members (A8, A11, POST /v2/wallet/invite); 0: no limit. */
    invites: Type.Object(
      {
        /** Invites one partner may send a day (then 4112). */
        senderDailyLimit: Type.Integer({ minimum: 0 }),
        /** Invites one phone number may receive a day, from all partners (then 4114). */
        receiverDailyLimit: Type.Integer({ minimum: 0 }),
        /** Invites one phone number may receive a month, from all partners (then 4115). */
        receiverMonthlyLimit: Type.Integer({ minimum: 0 }),
      },
      { additionalProperties: false },
    ),
    /** Where invite messages go: the store's outbox table (and the log), or a webhook. */
    messenger: Type.Union([
      Type.Object({ kind: Type.Literal('outbox') }, { additionalProperties: false }),
      Type.Object({ kind: Type.Literal('webhook'), url: Type.String({ pattern: '^https?://' }) }, { additionalProperties: false }),
    ]),
    walletApp: Type.Object(
      {
        /** Lifetime of a wallet-app session. */
        sessionLifetimeSeconds: Type.Integer({ minimum: 60 }),
        /** Test coins the home screen's faucet sends on an embedded chain (never on an external one). */
        faucetCoins: Type.Number({ exclusiveMinimum: 0, maximum: 1000 }),
        /** Seconds a member waits between two faucet sends on one chain (then 429). */
        faucetIntervalSeconds: Type.Integer({ minimum: 0 }),
      },
      { additionalProperties: false },
    ),
    partnerProgram: Type.Object(
      {
        /** First instant at which Family A is closed (ISO 8601 with offset); null keeps it open. */
        endsAt: Type.Union([Type.String({ pattern: ISO_DATE_TIME_WITH_OFFSET }), Type.Null()]),
      },
      { additionalProperties: false },
    ),
    /** Bounds on what a request may send (docs/configuration.md, "Request limits"). */
    http: Type.Object(
      {
        /** Largest JSON body; a larger one answers 413 (4130) before it is read. */
        maxJsonBodyBytes: Type.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024 }),
        /** Deepest nesting of arrays and objects in a JSON body, or in JSON text inside one (400). */
        maxJsonDepth: Type.Integer({ minimum: 8, maximum: 1_000 }),
        /** Largest JSON kept in the store from one request (B1's request), serialized (400). */
        maxStoredJsonBytes: Type.Integer({ minimum: 1024 }),
        /** Requests per client address and window on the routes without authentication (429 with Retry-After). */
        rateLimits: Type.Object(
          {
            /** B1 prepare. */
            prepare: RateLimit,
            /** B2 links and QR codes, B3 result polls (those answered from memory are not counted), B4 card query. */
            a2aReads: RateLimit,
            /** Wallet-app sign-up. */
            signUp: RateLimit,
            /** Wallet-app sign-in (the wrong-password back-off comes on top). */
            signIn: RateLimit,
            /** The claim page's calls (view and claim a card by its link). */
            claims: RateLimit,
            /** Card metadata and public files (read by marketplaces and indexers, often from few addresses). */
            metadata: RateLimit,
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
    partnerApi: Type.Object(
      {
        /** Requests per client address and window on every Family A route (per service process). */
        rateLimit: Type.Object(
          { max: Type.Integer({ minimum: 1 }), timeWindowMs: Type.Integer({ minimum: 1 }) },
          { additionalProperties: false },
        ),
        /** Back-off after wrong passwords (sign-in and password change), kept in the store. */
        signInThrottle: Type.Object(
          {
            /** Wrong passwords from one client address, for any logins, before it has to wait. */
            addressFreeFailures: Type.Integer({ minimum: 1 }),
            /** Wrong passwords from one client address for one login before that address has to wait for it. */
            addressAccountFreeFailures: Type.Integer({ minimum: 1 }),
            /** Wrong passwords for one account, from all addresses, after which each check of it is slowed (never refused). */
            accountFreeFailures: Type.Integer({ minimum: 1 }),
            /** How long each check of such an account waits first. */
            accountSlowdownMs: Type.Integer({ minimum: 0, maximum: 10_000 }),
            /** Wait after the first failure past the free ones; doubles with each further failure. */
            baseDelayMs: Type.Integer({ minimum: 1 }),
            /** Longest wait, so the real owner is never locked out for longer. */
            maxDelayMs: Type.Integer({ minimum: 1 }),
            /** Failures are forgotten when the last one is older than this. */
            windowMs: Type.Integer({ minimum: 1 }),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
    /**
     * GET /metrics (Prometheus text). On the service's port by default, which is only allowed while
     * the service listens on a loopback address or a token guards it; `port` moves it to a listener
     * of its own (on `host`), `token` asks every scrape for `Authorization: Bearer <token>`.
     */
    metrics: Type.Object(
      {
        port: Type.Union([Type.Integer({ minimum: 1, maximum: 65535 }), Type.Null()]),
        host: Type.String({ minLength: 1 }),
        token: secret(Type.Union([Type.String({ minLength: 16 }), Type.Null()])),
      },
      { additionalProperties: false },
    ),
    uploads: Type.Object(
      {
        /** Byte limit of an image on A4 and A5 (videos and every A6 file have the spec's 10 MiB). */
        maxImageBytes: Type.Integer({ minimum: 1 }),
      },
      { additionalProperties: false },
    ),
    /** Where uploaded files live: the data directory, or an S3-compatible bucket. */
    storage: Type.Union([
      Type.Object({ kind: Type.Literal('local') }, { additionalProperties: false }),
      Type.Object(
        {
          kind: Type.Literal('s3'),
          bucket: Type.String({ minLength: 1 }),
          region: Type.String({ minLength: 1 }),
          /** Endpoint of an S3-compatible service (MinIO, Ceph, R2, ...); AWS when absent. */
          endpoint: Type.Optional(Type.String({ pattern: '^https?://' })),
          /** Path-style URLs (bucket in the path), which most S3-compatible services need. */
          forcePathStyle: Type.Optional(Type.Boolean()),
          /** Credentials; when absent the AWS SDK's default chain (AWS_ACCESS_KEY_ID, ...) is used. */
          accessKeyId: Type.Optional(secret(Type.String({ minLength: 1 }))),
          secretAccessKey: Type.Optional(secret(Type.String({ minLength: 1 }))),
          /** Public files are linked at <publicBaseUrl>/<key> instead of through the service. */
          publicBaseUrl: Type.Optional(Type.String({ pattern: '^https?://' })),
        },
        { additionalProperties: false },
      ),
    ]),
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
    trustProxy: false,
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
    outbox: { pollIntervalMs: 200, rebroadcastAfterMs: 5_000, stuckAfterSeconds: 600 },
    cardIndex: { pollIntervalMs: 500, blockRange: 1_000 },
    cards: {
      maxRecipients: 1_000,
      maxBatchSize: 500,
      confirmTimeoutMs: 120_000,
      statusUrl: { timeoutMs: 3_000, maxBytes: 64 * 1024, maxRedirects: 3, allowPrivateAddresses: false },
    },
    a2a: {
      requestLifetimeSeconds: 600,
      resultRetentionSeconds: 86_400,
      executeContractDailyLimit: 100,
      resultPollIntervalMs: 250,
      feePayerFundingCoins: 10,
      links: { webUrl: null, appScheme: 'walletapp', appHost: 'wallet', appPackage: 'com.example.wallet' },
      globalLinks: { webUrl: null, appScheme: 'walletapp-global', appHost: 'wallet', appPackage: 'com.example.wallet.global' },
      cardImages: {},
    },
    webhooks: {
      pollIntervalMs: 500,
      // Standard Webhooks' schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 27.6 h in all).
      retryDelaysMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      timeoutMs: 15_000,
      holdLaterMessagesMs: 30_000,
      allowPrivateAddresses: false,
    },
    invites: { senderDailyLimit: 1_000, receiverDailyLimit: 3, receiverMonthlyLimit: 10 },
    messenger: { kind: 'outbox' },
    walletApp: { sessionLifetimeSeconds: 86_400, faucetCoins: 10, faucetIntervalSeconds: 60 },
    partnerProgram: { endsAt: null },
    http: {
      maxJsonBodyBytes: 1024 * 1024,
      maxJsonDepth: 64,
      maxStoredJsonBytes: 256 * 1024,
      rateLimits: {
        prepare: { max: 120, timeWindowMs: 60_000, acrossInstances: true },
        a2aReads: { max: 600, timeWindowMs: 60_000, acrossInstances: false },
        signUp: { max: 10, timeWindowMs: 3_600_000, acrossInstances: true },
        signIn: { max: 60, timeWindowMs: 60_000, acrossInstances: false },
        claims: { max: 60, timeWindowMs: 60_000, acrossInstances: false },
        metadata: { max: 3_000, timeWindowMs: 60_000, acrossInstances: false },
      },
    },
    partnerApi: {
      rateLimit: { max: 300, timeWindowMs: 60_000 },
      signInThrottle: {
        addressFreeFailures: 20,
        addressAccountFreeFailures: 5,
        accountFreeFailures: 100,
        accountSlowdownMs: 1_000,
        baseDelayMs: 30_000,
        maxDelayMs: 15 * 60_000,
        windowMs: 60 * 60_000,
      },
    },
    metrics: { port: null, host: '127.0.0.1', token: null },
    uploads: { maxImageBytes: 20 * 1024 * 1024 },
    storage: { kind: 'local' },
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

function fromEnv(env: NodeJS.ProcessEnv): ConfigOverrides {
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

function toNumber(value: string, name: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number)) throw new ConfigError(`invalid configuration:\n  ${name}: not a number`);
  return number;
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
