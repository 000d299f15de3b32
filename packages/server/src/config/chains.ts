/** The chains section: which chains run, embedded (managed) or reached over JSON-RPC (external). */
import Type, { type Static } from 'typebox';
import { secretUrl } from '../lib/secret.ts';

/** The three chain names the API accepts (`chain` of prepare and of the card query). */
export const CHAIN_NAMES = ['main', 'ethereum', 'polygon'] as const;
export type ChainName = (typeof CHAIN_NAMES)[number];

export const MAIN_MESSAGE_PREFIX = '\x19Main Signed Message:\n';
export const ETHEREUM_MESSAGE_PREFIX = '\x19Ethereum Signed Message:\n';

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
export type ManagedChainSettings = Static<typeof ManagedChain>;

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
    outbox: { pollIntervalMs: 200, rebroadcastAfterMs: 5_000, stuckAfterSeconds: 600 },
    cardIndex: { pollIntervalMs: 500, blockRange: 1_000 },
  };
}
