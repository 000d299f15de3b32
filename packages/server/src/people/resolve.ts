import type { Store } from '../store/database.ts';
import type { KeyVault } from '../custody/key-vault.ts';
import type { ReservedWalletRow } from '../store/schema.ts';
import { InviteBatch, type InviteDeps } from './invites.ts';
import { findMembers } from './members.ts';
import { cardInviteText } from './messages.ts';
import { distinctPeople, normalizePersonName, personKey, type Person } from './person.ts';
import { reserveWallet } from './reserved-wallets.ts';

/** Where the card of one to_person pair goes. */
export interface PersonRecipient extends Person {
  address: `0x${string}`;
  /** The member's id; null for a person who is not a member. */
  userId: string | null;
  /** The wallet kept for a person who is not a member; null for a member. */
  reservedWalletId: string | null;
  /** True at the first index of each person this call invites (not a member, not yet invited by this partner). */
  invite: boolean;
}

export interface PeopleResolution {
  /** Same order as the input. */
  recipients: PersonRecipient[];
  /** Sends the invites of the recipients at these indexes (whose card was minted); idempotent. */
  sendInvites(indexes: number[], context: { cardName: string; partnerServiceName: string }): Promise<void>;
  /** Gives back the invite quota of recipients whose invite will not be sent (mint failed/refused). */
  releaseInvites(indexes: number[]): Promise<void>;
}

/**
 * Members -> their address; others -> reserved wallet; reserves invite quota (4112/4114/4115).
 *
 * For each person who is not a member and whom this partner has not invited yet, an invite is
 * claimed and its quota taken, all before anything is minted; a refusal throws its AppError and
 * leaves no count, invite or wallet behind. Then each non-member gets the wallet kept for that name
 * and phone (created when there is none). Call `sendInvites` with the indexes whose card was minted,
 * then `releaseInvites` with the rest (an invite already sent is not released).
 */
export async function resolvePeople(deps: InviteDeps & { vault: KeyVault }, input: { partnerId: string; people: Person[] }): Promise<PeopleResolution> {
  const people = input.people.map((person) => ({ name: normalizePersonName(person.name), phone: person.phone }));
  const distinct = distinctPeople(people);
  const members = await findMembers(deps.store.db, distinct);
  const others = distinct.filter((person) => !members.has(personKey(person)));
  const invites = await InviteBatch.claim(deps, input.partnerId, others);
  await invites.takeQuota();
  const wallets = await reserveWallets(deps, others, invites);

  const firstIndex = new Map<string, number>();
  const recipients = people.map((person, index): PersonRecipient => {
    const key = personKey(person);
    if (!firstIndex.has(key)) firstIndex.set(key, index);
    const member = members.get(key);
    if (member) {
      return { ...person, address: member.main_address as `0x${string}`, userId: member.id, reservedWalletId: null, invite: false };
    }
    const wallet = wallets.get(key)!;
    const invite = invites.has(key) && firstIndex.get(key) === index;
    return { ...person, address: wallet.address as `0x${string}`, userId: null, reservedWalletId: wallet.id, invite };
  });
  const invitedKeys = (indexes: number[]) =>
    indexes.flatMap((index) => {
      const recipient = recipients[index];
      return recipient && recipient.reservedWalletId ? [personKey(recipient)] : [];
    });
  return {
    recipients,
    sendInvites: (indexes, context) => invites.send(invitedKeys(indexes), (person) => cardInviteText(deps.config, person, context)),
    releaseInvites: (indexes) => invites.release(invitedKeys(indexes)),
  };
}

/**
 * The reserved wallet of each person (by personKey), recorded on the batch's invites. When one cannot
 * be reserved, the batch is released and the error thrown.
 */
export async function reserveWallets(
  deps: { store: Store; vault: KeyVault },
  people: readonly Person[],
  invites: InviteBatch,
): Promise<Map<string, ReservedWalletRow>> {
  const wallets = new Map<string, ReservedWalletRow>();
  try {
    for (const person of people) wallets.set(personKey(person), await reserveWallet(deps, person));
  } catch (error) {
    await invites.release(people.map(personKey));
    throw error;
  }
  await invites.attachWallets(new Map([...wallets].map(([key, wallet]) => [key, wallet.id])));
  return wallets;
}
