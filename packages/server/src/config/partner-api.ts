/** Family A's sections: partners and their limits, cards, invites, uploads and where files live. */
import Type, { type Static } from 'typebox';
import { secret } from '../lib/secret.ts';

/** ISO 8601 date and time with an explicit offset (Z or +hh:mm): a closing time must not depend on the host's zone. */
const ISO_DATE_TIME_WITH_OFFSET = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$';

export const PartnerApiSections = Type.Object({
  partners: Type.Object({ defaultMintLimit: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
  cards: Type.Object(
    {
      /** Most recipients one A7 or A8 call may name. */
      maxRecipients: Type.Integer({ minimum: 1, maximum: 10_000 }),
      /** Most cards per mint transaction (fewer when the block gas limit needs it). */
      maxBatchSize: Type.Integer({ minimum: 1 }),
      /** How long A7, A8, A10, A11 and A14 wait for their transactions to be mined before answering 503. */
      confirmTimeoutMs: Type.Integer({ minimum: 100 }),
      /**
       * How long a card's claim (cards/claims) outlives the last renewal of its holder: the holder
       * renews it while it works, so only a claim left by a stopped process runs out.
       */
      claimLeaseMs: Type.Integer({ minimum: 1_000, maximum: 3_600_000 }),
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
  partnerProgram: Type.Object(
    {
      /** First instant at which Family A is closed (ISO 8601 with offset); null keeps it open. */
      endsAt: Type.Union([Type.String({ pattern: ISO_DATE_TIME_WITH_OFFSET }), Type.Null()]),
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
});

export function partnerApiDefaults(): Static<typeof PartnerApiSections> {
  return {
    partners: { defaultMintLimit: 10_000 },
    cards: {
      maxRecipients: 1_000,
      maxBatchSize: 500,
      confirmTimeoutMs: 120_000,
      claimLeaseMs: 60_000,
      statusUrl: { timeoutMs: 3_000, maxBytes: 64 * 1024, maxRedirects: 3, allowPrivateAddresses: false },
    },
    invites: { senderDailyLimit: 1_000, receiverDailyLimit: 3, receiverMonthlyLimit: 10 },
    messenger: { kind: 'outbox' },
    partnerProgram: { endsAt: null },
    uploads: { maxImageBytes: 20 * 1024 * 1024 },
    storage: { kind: 'local' },
  };
}
