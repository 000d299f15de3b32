import type { Config } from '../../config/config.ts';
import type { KeyVault } from '../../custody/key-vault.ts';
import { MAX_PIN_FAILURES } from '../../custody/key-vault.ts';
import { AppError } from '../../errors/app-error.ts';
import { Errors } from '../../errors/codes.ts';
import type { Store } from '../../store/database.ts';
import { epochSeconds } from '../../store/database.ts';
import type { UserRow } from '../../store/schema.ts';
import { checkNewMember, createUser, recordChainAddresses } from '../../users/commands.ts';
import { findUserByCi, inviteAwaitsWallet } from '../../users/store.ts';
import type { IdentityVerifier } from './identity.ts';
import { phoneInCountry } from '../../lib/phone.ts';
import { assertStrongPasswordHash, assertStrongPinHash } from '../../accounts/secret-strength.ts';

/** How long a partner's invite may wait for its reserved wallet before a sign-up goes ahead anyway. */
const INVITE_WALLET_WAIT_SECONDS = 600;

export interface SignUpInput {
  name: string;
  phone: string;
  /** The region a national `phone` is written in (default `phoneDefaultCountry`). */
  phone_country?: string | undefined;
  email: string;
  /** SHA-256 hex of the password. */
  password: string;
  /** YYYY-MM-DD. */
  birth: string;
  /** SHA-256 hex of the PIN. */
  pin: string;
}

/**
 * A member signs up in the wallet app. Refusals, in this order, before anything is kept: 400 a
 * malformed field, 4011 a password and 4010 a PIN too easy to guess (accounts/secret-strength.ts), 410 birth, 411 under 19, 413 e-mail taken, 412 a member of this name and phone,
 * 414 a card to this person is being minted right now (their invite waits for its reserved wallet:
 * try again in a moment), then the identity check (431 to 434 from the verifier, 435 no ci, 430 the
 * ci is a member's). A wallet reserved for the name and phone becomes the member's (users/commands.ts),
 * and the non-EVM addresses are recorded while the PIN is at hand.
 */
export async function signUp(
  deps: { config: Readonly<Config>; store: Store; vault: KeyVault; identity: IdentityVerifier },
  input: SignUpInput,
  now = new Date(),
): Promise<UserRow> {
  const person = { email: input.email, name: input.name, birth: input.birth };
  assertStrongPasswordHash(input.password, person);
  assertStrongPinHash(input.pin, person);
  const request = { ...input, phone: phoneInCountry(input.phone, input.phone_country), passwordHash: input.password.toLowerCase(), pinHash: input.pin.toLowerCase() };
  const { name, phone } = await checkNewMember(deps, request, now);
  if (await inviteAwaitsWallet(deps.store.db, { name, phone }, epochSeconds(now) - INVITE_WALLET_WAIT_SECONDS)) {
    throw new AppError(Errors.AccountWithoutWallet, { detail: 'a card to this person is being sent right now; try again in a minute' });
  }
  const { ci } = await deps.identity.verify({ name, phone, birth: input.birth });
  if (!ci) throw new AppError(Errors.MessengerCiEmpty);
  if (await findUserByCi(deps.store.db, ci)) throw new AppError(Errors.DuplicatedCi);
  const member = await createUser(deps, { ...request, ci }, now);
  // The member exists now: if the addresses cannot be recorded, the home screen asks for the PIN once.
  return recordChainAddresses(deps, member, request.pinHash).catch(() => member);
}

/** Where the member's PIN stands: wrong PINs in a row, and whether signing is locked (403). */
export async function pinState(deps: { vault: KeyVault }, member: UserRow): Promise<{ failures: number; max_failures: number; locked: boolean }> {
  const failures = await deps.vault.pinFailures(member.key_id);
  return { failures, max_failures: MAX_PIN_FAILURES, locked: failures >= MAX_PIN_FAILURES };
}

/**
 * PIN change: a new PIN too easy to guess is 4010 (before the old one is tried, so it costs no
 * attempt); the old PIN is checked as any (4006, 403 when locked), the same PIN again is 4007.
 */
export async function changePin(deps: { vault: KeyVault }, member: UserRow, input: { old_pin: string; new_pin: string }): Promise<void> {
  assertStrongPinHash(input.new_pin, { birth: member.birth });
  await deps.vault.changePin(member.key_id, input.old_pin.toLowerCase(), input.new_pin.toLowerCase());
}
