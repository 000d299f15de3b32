import Type, { type Static } from 'typebox';

/** Most people one invite call may name. */
export const MAX_INVITE_PEOPLE = 100;

/** Body of `POST /v2/wallet/invite`; each pair is checked by parsePersonPair (400 naming its index). */
export const InviteBody = Type.Object(
  { to_person: Type.Array(Type.Unknown(), { minItems: 1, maxItems: MAX_INVITE_PEOPLE }) },
  { additionalProperties: true },
);
export type InviteBody = Static<typeof InviteBody>;

export const InviteAnswer = Type.Object({ invited: Type.Integer({ minimum: 0 }) }, { additionalProperties: false });
