import { AppError } from '../errors/app-error.ts';
import type { KeyVault } from '../custody/key-vault.ts';
import type { PartnerRow } from '../store/schema.ts';
import { InviteBatch, type InviteDeps } from './invites.ts';
import { findMembers } from './members.ts';
import { plainInviteText } from './messages.ts';
import { distinctPeople, parsePersonPair, personKey } from './person.ts';
import { reserveWallets } from './resolve.ts';
import { Errors } from '../errors/codes.ts';

/**
 * `POST /v2/wallet/invite`: invites every person of `pairs`, all or nothing. Refusals, before anything
 * is kept: a malformed pair 400; a member 4111; a person this partner already invited 4113; the
 * limits 4112, 4114, 4115. Then each person gets a reserved wallet and the message. The same person
 * twice in one call is invited once. Answers how many people were invited.
 */
export async function invitePeople(
  deps: InviteDeps & { vault: KeyVault },
  partner: Pick<PartnerRow, 'id' | 'service_name'>,
  pairs: readonly unknown[],
): Promise<{ invited: number }> {
  const people = pairs.map((pair, index) => parsePersonPair(pair, index, deps.config.phoneDefaultCountry));
  const indexOf = (key: string) => people.findIndex((person) => personKey(person) === key);
  const distinct = distinctPeople(people);
  const members = await findMembers(deps.store.db, distinct);
  const [member] = members.keys();
  if (member !== undefined) throw new AppError(Errors.ReceiverAlreadyMember, { detail: `to_person[${indexOf(member)}] is a member` });

  const invites = await InviteBatch.claim(deps, partner.id, distinct);
  const repeated = distinct.map(personKey).find((key) => !invites.has(key));
  if (repeated !== undefined) {
    await invites.release(distinct.map(personKey));
    throw new AppError(Errors.InviteAlreadySent, { detail: `to_person[${indexOf(repeated)}] was already invited` });
  }
  await invites.takeQuota();
  await reserveWallets(deps, distinct, invites);
  await invites.send(distinct.map(personKey), (person) => plainInviteText(deps.config, person, partner.service_name));
  return { invited: distinct.length };
}
