/** The sections of App2App (Family B), the wallet app and partner webhooks. */
import Type, { type Static } from 'typebox';

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

export const App2AppSections = Type.Object({
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
});

export function app2AppDefaults(): Static<typeof App2AppSections> {
  return {
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
    walletApp: { sessionLifetimeSeconds: 86_400, faucetCoins: 10, faucetIntervalSeconds: 60 },
    webhooks: {
      pollIntervalMs: 500,
      // Standard Webhooks' schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 27.6 h in all).
      retryDelaysMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      timeoutMs: 15_000,
      holdLaterMessagesMs: 30_000,
      allowPrivateAddresses: false,
    },
  };
}
