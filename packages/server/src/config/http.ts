/** The sections that bound what callers may send: request limits, rate limits, sign-in back-off, /metrics. */
import Type, { type Static } from 'typebox';
import { secret } from '../lib/secret.ts';

/** A per-address rate limit: `max` requests per `timeWindowMs`; `acrossInstances` counts in the store (every process shares it). */
const RateLimit = Type.Object(
  { max: Type.Integer({ minimum: 1 }), timeWindowMs: Type.Integer({ minimum: 1 }), acrossInstances: Type.Boolean() },
  { additionalProperties: false },
);

export const HttpSections = Type.Object({
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
      rateLimit: Type.Object({ max: Type.Integer({ minimum: 1 }), timeWindowMs: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
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
});

export function httpDefaults(): Static<typeof HttpSections> {
  return {
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
  };
}
