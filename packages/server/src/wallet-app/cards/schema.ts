import Type from 'typebox';
import { Address } from '../../cards/mint/payload.ts';
import { BappEntry, contractCardPage, ListedCard } from '../../cards/lists/schema.ts';
import { Sha256Hex } from '../../http/schema.ts';
import { secret } from '../../lib/secret.ts';
import { PhoneCountry } from '../members/schema.ts';

/** A card of the member's lists: A12's card entry with what the list shows of its design. */
export const MemberCard = Type.Object({
  ...ListedCard.properties,
  name: Type.String(),
  image: Type.String(),
  animation_url: Type.Optional(Type.String()),
  background_color: Type.Optional(Type.String()),
  layout: Type.String({ description: 'general, horizontal or vertical' }),
  sendable: Type.Boolean(),
  send_friend_only: Type.Boolean({ description: 'sending to friends only is not available: such a card cannot be sent' }),
});

/** The member's cards grouped by BApp, as A12 groups them (100 BApps a page, 100 cards each). */
export const MemberBappList = Type.Object({
  bapps: Type.Array(Type.Object({ ...BappEntry.properties, cards: Type.Array(MemberCard) })),
  next_cursor: Type.String({ description: "'' on the last page" }),
});

export const MemberCardListQuery = Type.Object({
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
});

/** More cards of one BApp: after its cards_next_cursor. */
export const MemberBappCards = contractCardPage(MemberCard);

/** A card sent by the member: to an address, or to a person by name and phone (a member, or a wallet kept for them). */
export const MemberSendCardBody = Type.Object({
  pin: secret(Sha256Hex),
  to_address: Type.Optional(Address),
  to_person: Type.Optional(
    Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), phone: Type.String({ minLength: 6, maxLength: 32 }), phone_country: Type.Optional(PhoneCountry) }),
  ),
});

export const MemberSendCardAnswer = Type.Object({
  hash: Type.String({ description: 'the mined transfer' }),
  to_address: Type.String({ description: 'where the card went' }),
});
