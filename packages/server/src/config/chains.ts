/** The chains section: which chains run, embedded (managed) or reached over JSON-RPC (external). */
import Type, { type Static } from 'typebox';
import { Value } from 'typebox/value';
import { secretUrl } from '../lib/secret.ts';

/** The three chain names the API accepts (`chain` of prepare and of the card query). */
export const CHAIN_NAMES = ['main', 'ethereum', 'polygon'] as const;
export type ChainName = (typeof CHAIN_NAMES)[number];

export const MAIN_MESSAGE_PREFIX = '\x19Main Signed Message:\n';
export const ETHEREUM_MESSAGE_PREFIX = '\x19Ethereum Signed Message:\n';

const MessagePrefix = Type.String({ minLength: 1, description: 'Prefix of sign_message: prefix + decimal byte length + message' });

/**
 * When a mined transaction counts as final: `depth` blocks on top of its block (0: at once), or its
 * block at or below the node's `safe`/`finalized` block. Until then it is pending everywhere.
 */
export const Confirmations = Type.Union([
  Type.Object({ depth: Type.Integer({ minimum: 0, maximum: 1000 }) }, { additionalProperties: false }),
  Type.Object({ tag: Type.Union([Type.Literal('safe'), Type.Literal('finalized')]) }, { additionalProperties: false }),
]);
/** A chain's resolved confirmation rule (see chainConfirmations). */
export type ChainConfirmations = Static<typeof Confirmations>;

/**
 * Defaults of external chains by chain id: Kaia finalises each block (instant finality);
 * Ethereum and Polygon PoS (and their testnets) answer the `finalized` tag; 31337 and 1337, the ids
 * of local development nodes (anvil, Hardhat, Ganache), mine on demand and reorganise only when
 * told to. Other chains: depth 12.
 */
const KNOWN_CONFIRMATIONS: Record<number, ChainConfirmations> = {
  8217: { depth: 0 },
  1001: { depth: 0 },
  31337: { depth: 0 },
  1337: { depth: 0 },
  1: { tag: 'finalized' },
  11155111: { tag: 'finalized' },
  137: { tag: 'finalized' },
  80002: { tag: 'finalized' },
};
const EXTERNAL_DEPTH = 12;

/**
 * The rule a chain runs with: the configured one, else depth 0 on an embedded node (it reorganises
 * only when told to), else the default of its chain id.
 *
 * @example chainConfirmations({ mode: 'external', chainId: 1 }) // { tag: 'finalized' }
 */
export function chainConfirmations(settings: { mode: 'managed' | 'external'; chainId: number; confirmations?: ChainConfirmations | undefined }): ChainConfirmations {
  if (settings.confirmations) return settings.confirmations;
  if (settings.mode === 'managed') return { depth: 0 };
  return KNOWN_CONFIRMATIONS[settings.chainId] ?? { depth: EXTERNAL_DEPTH };
}

/** A problem line per chain whose `confirmations` is no valid rule (the schema's message for a union says little). */
export function confirmationProblems(chains: unknown): string[] {
  if (typeof chains !== 'object' || chains === null) return [];
  return Object.entries(chains).flatMap(([name, settings]) => {
    if (typeof settings !== 'object' || settings === null || !('confirmations' in settings)) return [];
    const rule = (settings as { confirmations: unknown }).confirmations;
    if (rule === undefined || Value.Check(Confirmations, rule)) return [];
    return [`  /chains/${name}/confirmations: give { "depth": 0 to 1000 }, { "tag": "safe" } or { "tag": "finalized" }, not ${JSON.stringify(rule)}`];
  });
}

/** An ERC-20 the wallet app always lists on a chain (beside those seen in the member's transfers). */
const ListedToken = Type.Object(
  {
    address: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
    symbol: Type.String({ minLength: 1, maxLength: 16 }),
    decimals: Type.Integer({ minimum: 0, maximum: 36 }),
  },
  { additionalProperties: false },
);

/** How people see a chain and its coin (the wallet app); absent fields take chainDisplay()'s defaults. */
const DisplayFields = {
  displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
  ticker: Type.Optional(Type.String({ minLength: 1, maxLength: 16 })),
  decimals: Type.Optional(Type.Integer({ minimum: 0, maximum: 36 })),
  tokens: Type.Optional(Type.Array(ListedToken, { maxItems: 50 })),
};

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
    /** When a mined transaction is final; absent: depth 0. */
    confirmations: Type.Optional(Confirmations),
    ...DisplayFields,
  },
  { additionalProperties: false },
);
export type ManagedChainSettings = Static<typeof ManagedChain>;

const ExternalChain = Type.Object(
  {
    mode: Type.Literal('external'),
    rpcUrl: secretUrl(Type.String({ pattern: '^(https?|wss?)://' })),
    chainId: Type.Integer({ minimum: 1 }),
    messagePrefix: MessagePrefix,
    /** When a mined transaction is final; absent: the default of the chain id (chainConfirmations). */
    confirmations: Type.Optional(Confirmations),
    ...DisplayFields,
  },
  { additionalProperties: false },
);

const ChainSetting = Type.Union([ManagedChain, ExternalChain, Type.Null()]);

export const ChainSections = Type.Object({
  chains: Type.Object({ main: ChainSetting, ethereum: ChainSetting, polygon: ChainSetting }, { additionalProperties: false }),
  operator: Type.Object(
    {
      /** On managed chains the operator account is topped up to this many coins at start. */
      managedBalanceCoins: Type.Integer({ minimum: 1 }),
      /** Coins sent to a partner's account when it is approved, so it can pay for its mints. */
      partnerFundingCoins: Type.Number({ minimum: 0 }),
    },
    { additionalProperties: false },
  ),
  outbox: Type.Object(
    {
      /** How often unmined transactions are checked for receipts. */
      pollIntervalMs: Type.Integer({ minimum: 10 }),
      /** A transaction with no receipt after this long is broadcast again (same bytes). */
      rebroadcastAfterMs: Type.Integer({ minimum: 100 }),
      /** Most transactions of one account sent to its node ahead of its mined nonce; later ones wait, stored, in nonce order. */
      sendWindow: Type.Integer({ minimum: 1, maximum: 65_536 }),
      /** /health/ready answers 503 while a transaction has waited this long for its receipt. */
      stuckAfterSeconds: Type.Integer({ minimum: 1 }),
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
});

function managed(chainId: number, messagePrefix: string): ManagedChainSettings {
  return { mode: 'managed', chainId, messagePrefix, rpcPort: 0, blockTimeSeconds: 0, stateIntervalSeconds: 1 };
}

/** Every chain embedded on this machine. */
export function chainDefaults(): Static<typeof ChainSections> {
  return {
    chains: {
      main: managed(31337, MAIN_MESSAGE_PREFIX),
      ethereum: managed(31338, ETHEREUM_MESSAGE_PREFIX),
      polygon: managed(31339, ETHEREUM_MESSAGE_PREFIX),
    },
    operator: { managedBalanceCoins: 1_000_000, partnerFundingCoins: 10 },
    outbox: { pollIntervalMs: 200, rebroadcastAfterMs: 5_000, sendWindow: 256, stuckAfterSeconds: 600 },
    cardIndex: { pollIntervalMs: 500, blockRange: 1_000 },
  };
}

const DISPLAY_DEFAULTS: Record<ChainName, { displayName: string; ticker: string }> = {
  main: { displayName: 'Main chain', ticker: 'MAIN' },
  ethereum: { displayName: 'Ethereum', ticker: 'ETH' },
  polygon: { displayName: 'Polygon', ticker: 'POL' },
};

/** A chain's name and coin as people see them, and its listed tokens: the configured ones, else the defaults (18 decimals, no tokens). */
export function chainDisplay(
  name: ChainName,
  settings: Partial<Record<keyof typeof DisplayFields, unknown>> | null,
): { displayName: string; ticker: string; decimals: number; tokens: Array<Static<typeof ListedToken>> } {
  const chosen = (settings ?? {}) as { displayName?: string; ticker?: string; decimals?: number; tokens?: Array<Static<typeof ListedToken>> };
  return {
    displayName: chosen.displayName ?? DISPLAY_DEFAULTS[name].displayName,
    ticker: chosen.ticker ?? DISPLAY_DEFAULTS[name].ticker,
    decimals: chosen.decimals ?? 18,
    tokens: chosen.tokens ?? [],
  };
}
