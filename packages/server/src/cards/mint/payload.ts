import Type, { type Static } from 'typebox';
import { Sha256Hex } from '../../http/schema.ts';
import { secret } from '../../lib/secret.ts';

/**
 * The card mint payload shared by A7 and A8 (docs/partner-api.md, "Card mint payload"). The
 * schema holds every rule a schema can say; `checkMintRules` holds the rest. A payload that breaks
 * any rule is answered 400 before anything is stored or signed.
 */

/** Longest URL a payload may carry where the Limits table sets none. */
export const MAX_URL_LENGTH = 2048;
/** Limits table: external_link, qr_code, bar_code, each custom link. */
export const MAX_LINK_LENGTH = 255;
/** Limits table: attributes, custom_links. */
export const MAX_LIST_ITEMS = 10;
/** Limits table: secure.bar_code, spaces and hyphens not counted. */
export const MAX_SECURE_BAR_CODE = 20;
/** Limits table: secure.qr_code. */
export const MAX_SECURE_QR_CODE = 255;
/** Ours (the spec sets none): card name, description, group name and hashtags. */
export const MAX_NAME_LENGTH = 255;
export const MAX_DESCRIPTION_LENGTH = 4000;
export const MAX_HASHTAGS = 20;
export const MAX_HASHTAG_LENGTH = 100;
/** Ours: secure images or animations per card. */
export const MAX_SECURE_FILES = 10;

const url = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: '^https?://[^\\s]+$' });
const text = (maxLength: number) => Type.String({ minLength: 1, maxLength });
export const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' });

const Attribute = Type.Object(
  { trait_type: Type.String({ maxLength: MAX_NAME_LENGTH }), value: Type.String({ maxLength: MAX_NAME_LENGTH }) },
  { additionalProperties: false },
);
/** A4-A6 file names as the secure upload answers them: `<uuid>.<ext>`. */
const SecureFileName = Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.[a-z0-9]{2,5}$' });
const SecureFile = Type.Object(
  { low_resolution: Type.Optional(SecureFileName), high_resolution: Type.Optional(SecureFileName) },
  { additionalProperties: false, minProperties: 1 },
);

export const SecurePayload = Type.Object(
  {
    bar_code: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    qr_code: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_SECURE_QR_CODE })),
    attributes: Type.Optional(Type.Array(Attribute, { maxItems: MAX_LIST_ITEMS })),
    images: Type.Optional(Type.Array(SecureFile, { minItems: 1, maxItems: MAX_SECURE_FILES })),
    animations: Type.Optional(Type.Array(SecureFile, { minItems: 1, maxItems: MAX_SECURE_FILES })),
  },
  { additionalProperties: false },
);
export type SecurePayload = Static<typeof SecurePayload>;

/** Every field of the payload except the recipients. */
export const MintDesignFields = {
  pin: secret(Sha256Hex),
  contract_address: Address,
  name: text(MAX_NAME_LENGTH),
  description: Type.String({ maxLength: MAX_DESCRIPTION_LENGTH }),
  image: url(MAX_URL_LENGTH),
  animation_url: Type.Optional(Type.String({ maxLength: MAX_URL_LENGTH, pattern: '^https?://[^\\s]+\\.[mM][pP]4([?#][^\\s]*)?$' })),
  background_color: Type.Optional(Type.String({ pattern: '^#?[0-9a-fA-F]{6}$' })),
  sendable: Type.Optional(Type.Boolean()),
  send_friend_only: Type.Optional(Type.Boolean()),
  group_name: Type.Optional(Type.String({ maxLength: MAX_NAME_LENGTH })),
  group_icon: Type.Optional(url(MAX_URL_LENGTH)),
  hashtags: Type.Optional(Type.Array(text(MAX_HASHTAG_LENGTH), { maxItems: MAX_HASHTAGS })),
  layout: Type.Optional(Type.Union([Type.Literal('general'), Type.Literal('horizontal'), Type.Literal('vertical')])),
  external_link: Type.Optional(url(MAX_LINK_LENGTH)),
  custom_links: Type.Optional(
    Type.Array(
      Type.Object({ display_name: text(MAX_NAME_LENGTH), value: url(MAX_LINK_LENGTH) }, { additionalProperties: false }),
      { maxItems: MAX_LIST_ITEMS },
    ),
  ),
  qr_code: Type.Optional(url(MAX_LINK_LENGTH)),
  bar_code: Type.Optional(url(MAX_LINK_LENGTH)),
  attributes: Type.Optional(Type.Array(Attribute, { maxItems: MAX_LIST_ITEMS })),
  secure: Type.Optional(secret(SecurePayload)),
  status_url: Type.Optional(url(MAX_URL_LENGTH)),
};

const MintDesignPayload = Type.Object(MintDesignFields);
export type MintDesignPayload = Static<typeof MintDesignPayload>;

/** The public metadata of a card design, as `card_uri` serves it (without `secure`). */
export interface CardMetadata {
  name: string;
  description: string;
  image: string;
  animation_url?: string;
  background_color?: string;
  attributes: Array<{ trait_type: string; value: string }>;
  external_link?: string;
  sendable: boolean;
  send_friend_only: boolean;
  group_name?: string;
  group_icon?: string;
  hashtags: string[];
  layout: 'general' | 'horizontal' | 'vertical';
  custom_links: Array<{ display_name: string; value: string }>;
  qr_code?: string;
  bar_code?: string;
  status_url?: string;
}

/** A validated design: what every card of one mint shows. */
export interface CardDesign {
  metadata: CardMetadata;
  secure: SecurePayload | null;
  /** Secure (A6) file names the secure object names. */
  secureFiles: string[];
}

/**
 * The rules of the payload that its schema cannot say. Returns the reason a payload is refused,
 * or undefined. (Secure file ownership is checked against the store by the mint command.)
 */
export function mintRuleViolation(payload: MintDesignPayload): string | undefined {
  if (payload.send_friend_only === true) return 'send_friend_only must be false: sending to friends only is not available';
  const secure = payload.secure;
  if (secure?.bar_code !== undefined && secure.bar_code.replace(/[ -]/g, '').length > MAX_SECURE_BAR_CODE) {
    return `secure.bar_code may have at most ${MAX_SECURE_BAR_CODE} characters besides spaces and hyphens`;
  }
  if (secure?.animations && !secure.images) return 'secure.animations need secure.images as their thumbnails';
  return undefined;
}

/** The design of a payload that passed the schema and mintRuleViolation. */
export function designOf(payload: MintDesignPayload): CardDesign {
  const metadata: CardMetadata = {
    name: payload.name,
    description: payload.description,
    image: payload.image,
    attributes: payload.attributes ?? [],
    sendable: payload.sendable ?? false,
    send_friend_only: false,
    hashtags: payload.hashtags ?? [],
    layout: payload.layout ?? 'general',
    custom_links: payload.custom_links ?? [],
  };
  for (const field of ['animation_url', 'background_color', 'external_link', 'group_name', 'group_icon', 'qr_code', 'bar_code', 'status_url'] as const) {
    const value = payload[field];
    if (value !== undefined) metadata[field] = value;
  }
  const secure = payload.secure && Object.keys(payload.secure).length > 0 ? payload.secure : null;
  const secureFiles = new Set<string>();
  for (const file of [...(secure?.images ?? []), ...(secure?.animations ?? [])]) {
    if (file.low_resolution) secureFiles.add(file.low_resolution);
    if (file.high_resolution) secureFiles.add(file.high_resolution);
  }
  return { metadata, secure, secureFiles: [...secureFiles] };
}
