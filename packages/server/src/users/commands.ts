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
import { findReservedWallet, markReservedWalletClaimed } from '../people/reserved-wallets.ts';
import { Errors } from '../errors/codes.ts';
import { findUserByEmail, insertUser, memberExists } from './store.ts';

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
}

/**
 * Signs up a wallet member: a BIP-39 wallet whose key only the member's PIN unlocks. When a wallet
 * is reserved for this name and phone (cards sent to the person before they were a member), that
 * wallet becomes the member's: its key is turned into the member's PIN key, and the claim, the key
 * and the user row commit together. Names are trimmed, inner whitespace collapsed.
 */
export async function createUser(deps: { config: Readonly<Config>; store: Store; vault: KeyVault }, input: CreateUserInput, now = new Date()): Promise<UserRow> {
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
  const id = randomUUID();
  const passwordHash = await hashPassword(input.passwordHash);
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
      key = { keyId: reserved.key_id, address: reserved.address };
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
    };
    try {
      await insertUser(trx, row);
    } catch (error) {
      // The same person signed up at the same time in another process (users_person), else the e-mail.
      if (isUniqueViolation(error)) throw new AppError(/users_person|users\.phone, users\.name/.test(String((error as Error).message)) ? Errors.AccountExists : Errors.EmailTaken);
      throw error;
    }
    return row;
  });
}

/** Whole years between a YYYY-MM-DD birth date and now; undefined for an impossible date. */
/** Operator unlock after five wrong PINs: the member may approve requests again (406 for an unknown e-mail). */
export async function unlockMemberPin(deps: { store: Store; vault: KeyVault }, email: string): Promise<UserRow> {
  const member = await findUserByEmail(deps.store.db, email.trim().toLowerCase());
  if (!member) throw new AppError(Errors.UserNotFound);
  await deps.vault.resetPinFailures(member.key_id);
  return member;
}

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
