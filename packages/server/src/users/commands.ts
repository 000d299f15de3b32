import { randomUUID } from 'node:crypto';
import type { Config } from '../config/config.ts';
import type { Store } from '../store/database.ts';
import type { KeyVault } from '../custody/key-vault.ts';
import { AppError } from '../errors/app-error.ts';
import { hashPassword } from '../custody/passwords.ts';
import { epochSeconds, isUniqueViolation } from '../store/database.ts';
import type { UserRow } from '../store/schema.ts';
import { normalizePhone } from '../lib/phone.ts';
import { normalizePersonName } from '../people/person.ts';
import { findInvitesOfWallet, findReservedWallet, markReservedWalletClaimed } from '../people/reserved-wallets.ts';
import { enqueueWebhookEvent } from '../webhooks/events.ts';
import { Errors } from '../errors/codes.ts';
import { deriveChainAddresses } from '../custody/chain-addresses.ts';
import { findUserByEmail, insertUser, markPersonInvitesUsed, memberExists, setChainAddresses } from './store.ts';

export const USER_STATUS = { active: 1, banned: 421, suspended: 422, unsubscribed: 423 } as const;
const MINIMUM_AGE = 19;

export interface CreateUserInput {
  name: string;
  phone: string;
  email: string;
  /** SHA-256 hex of the password. */
  passwordHash: string;
  /** SHA-256 hex of the PIN. */
  pinHash: string;
  /** YYYY-MM-DD. */
  birth: string;
  /** The identity check's connecting information (wallet-app sign-up); one member per ci (430). */
  ci?: string | undefined;
}

/**
 * The checks of a sign-up before anything is kept, in the order the codes are answered: a malformed
 * field 400, birth 410, under 19 411, e-mail taken 413, a member of this name and phone 412. Answers
 * the e-mail, name and phone as they are stored.
 */
export async function checkNewMember(
  deps: { config: Readonly<Config>; store: Store },
  input: Pick<CreateUserInput, 'name' | 'phone' | 'email' | 'passwordHash' | 'pinHash' | 'birth'>,
  now = new Date(),
): Promise<{ email: string; name: string; phone: string }> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new AppError(Errors.BadRequest, { detail: 'email is not valid' });
  if (!/^[0-9a-f]{64}$/.test(input.passwordHash) || !/^[0-9a-f]{64}$/.test(input.pinHash)) {
    throw new AppError(Errors.BadRequest, { detail: 'password and pin must be 64-character SHA-256 hex' });
  }
  const name = normalizePersonName(input.name);
  if (!name) throw new AppError(Errors.BadRequest, { detail: 'name is required' });
  const phone = normalizePhone(input.phone, deps.config.phoneDefaultCountry);
  if (!phone) throw new AppError(Errors.BadRequest, { detail: 'phone is not a valid phone number' });
  const age = ageOn(input.birth, now);
  if (age === undefined) throw new AppError(Errors.InvalidBirth);
  if (age < MINIMUM_AGE) throw new AppError(Errors.UnderAge);

  const db = deps.store.db;
  if (await findUserByEmail(db, email)) throw new AppError(Errors.EmailTaken);
  if (await memberExists(db, name, phone)) throw new AppError(Errors.AccountExists);
  return { email, name, phone };
}

/**
 * Signs up a wallet member: a BIP-39 wallet whose key only the member's PIN unlocks. When a wallet
 * is reserved for this name and phone (cards sent to the person before they were a member), that
 * wallet becomes the member's: its key is turned into the member's PIN key, and the claim, the key
 * the user row and the person's invites (marked used) commit together. Names are trimmed, inner
 * whitespace collapsed.
 */
export async function createUser(deps: { config: Readonly<Config>; store: Store; vault: KeyVault }, input: CreateUserInput, now = new Date()): Promise<UserRow> {
  const { email, name, phone } = await checkNewMember(deps, input, now);
  const db = deps.store.db;
  const id = randomUUID();
  const passwordHash = await hashPassword(input.passwordHash, deps.config.custody.scryptCost);
  const createdAt = epochSeconds(now);
  return db.transaction().execute(async (trx) => {
    // Read again in the transaction: a parallel sign-up of this person may have committed meanwhile.
    if (await memberExists(trx, name, phone)) throw new AppError(Errors.AccountExists);
    const reserved = await findReservedWallet(trx, { name, phone });
    let key: { keyId: string; address: string };
    if (reserved) {
      // A parallel sign-up of this person claimed it first (its row lock made this one wait).
      if (!(await markReservedWalletClaimed(trx, reserved.id, id, createdAt))) throw new AppError(Errors.AccountExists);
      await deps.vault.protectWithPin(reserved.key_id, input.pinHash, trx);
      await markPersonInvitesUsed(trx, { name, phone }, createdAt);
      key = { keyId: reserved.key_id, address: reserved.address };
      // Each partner that invited the person learns, with the sign-up's own transaction, that the wallet is theirs now.
      for (const invite of await findInvitesOfWallet(trx, reserved.id)) {
        await enqueueWebhookEvent(trx, { partnerId: invite.partner_id, type: 'invite.accepted', data: { invite_id: invite.id, name, phone, address: reserved.address } });
      }
    } else {
      key = await deps.vault.createKey(
        { ownerType: 'user', ownerId: id, protection: 'pin', secretKind: 'mnemonic_entropy', pin: input.pinHash },
        trx,
      );
    }
    const row: UserRow = {
      id,
      email,
      password_hash: passwordHash,
      name,
      phone,
      birth: input.birth,
      status: USER_STATUS.active,
      key_id: key.keyId,
      main_address: key.address,
      created_at: createdAt,
      updated_at: createdAt,
      ci: input.ci ?? null,
      bitcoin_address: null,
      solana_address: null,
      tron_address: null,
      xrpl_address: null,
    };
    try {
      await insertUser(trx, row);
    } catch (error) {
      // The same person signed up at the same time in another process (users_person), else the e-mail.
      if (isUniqueViolation(error)) throw new AppError(uniqueViolationCode(String((error as Error).message)));
      throw error;
    }
    return row;
  });
}

/** Which unique index a parallel sign-up hit: the person (412), the ci (430), else the e-mail (413). */
function uniqueViolationCode(message: string): typeof Errors.AccountExists | typeof Errors.DuplicatedCi | typeof Errors.EmailTaken {
  if (/users_person|users\.phone, users\.name/.test(message)) return Errors.AccountExists;
  if (/users_ci|users\.ci/.test(message)) return Errors.DuplicatedCi;
  return Errors.EmailTaken;
}

/**
 * Derives the member's bitcoin, solana, tron and xrpl addresses from the phrase the PIN unlocks and
 * keeps them on the member, so that they can be shown without the PIN. A wrong PIN counts as any
 * (4006, then 403).
 */
export async function recordChainAddresses(deps: { store: Store; vault: KeyVault }, member: UserRow, pinHash: string): Promise<UserRow> {
  const key = await deps.vault.unlock(member.key_id, pinHash);
  if (!key.mnemonic) return member;
  const addresses = deriveChainAddresses(key.mnemonic);
  await setChainAddresses(deps.store.db, member.id, addresses);
  return { ...member, ...addresses };
}

/** Operator unlock after five wrong PINs: the member may approve requests again (406 for an unknown e-mail). */
export async function unlockMemberPin(deps: { store: Store; vault: KeyVault }, email: string): Promise<UserRow> {
  const member = await findUserByEmail(deps.store.db, email.trim().toLowerCase());
  if (!member) throw new AppError(Errors.UserNotFound);
  await deps.vault.resetPinFailures(member.key_id);
  return member;
}

/** Whole years between a YYYY-MM-DD birth date and now; undefined for an impossible date. */
export function ageOn(birth: string, now: Date): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(birth);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  if (date > now || year < 1900) return undefined;
  let age = now.getUTCFullYear() - year;
  if (now.getUTCMonth() < month - 1 || (now.getUTCMonth() === month - 1 && now.getUTCDate() < day)) age -= 1;
  return age;
}
