import { AppError } from '../../errors/app-error.ts';
import { hashPassword } from '../../custody/passwords.ts';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/database.ts';
import type { SignInThrottle } from '../../sign-in-guard/throttle.ts';
import type { KeyVault } from '../../custody/key-vault.ts';
import { epochSeconds } from '../../store/database.ts';
import type { PartnerRow } from '../../store/schema.ts';
import { Errors } from '../../errors/codes.ts';
import { findPartnerPassword, replacePartnerPassword } from '../../partners/store.ts';

/**
 * A2: replaces the password and bumps token_version, which ends every token issued before (4044),
 * the caller's own included. Same value 4007 (checked first, nothing is tried); wrong old password
 * 4004, counted by the wrong-password back-off (4008 while waiting). Of concurrent changes only the
 * first wins; the others find the caller's token ended by it (4044), and no wrong password is counted.
 */
export async function changePartnerPassword(
  deps: { config: Readonly<Config>; store: Store; signInThrottle: SignInThrottle },
  partner: PartnerRow,
  input: { oldPassword: string; newPassword: string; address: string },
): Promise<void> {
  if (input.oldPassword.toLowerCase() === input.newPassword.toLowerCase()) throw new AppError(Errors.SameAsBefore);
  const current = await deps.signInThrottle.checkPassword({ address: input.address, login: partner.email, password: input.oldPassword }, async () => {
    const account = await findPartnerPassword(deps.store.db, partner.id);
    // A change that landed while this call was on its way ended the caller's token: answered as for
    // that token (4044), before the old password is tried, so a repeated change is no wrong password.
    if (account && Number(account.token_version) !== Number(partner.token_version)) throw new AppError(Errors.UnknownAccessToken, { detail: 'the password was changed at the same time' });
    return account;
  });
  const newHash = await hashPassword(input.newPassword, deps.config.custody.scryptCost);
  const replaced = await replacePartnerPassword(deps.store.db, { id: partner.id, oldHash: current.password_hash, newHash, now: epochSeconds() });
  if (!replaced) throw new AppError(Errors.UnknownAccessToken, { detail: 'the password was changed at the same time' });
}

/**
 * A3: re-wraps the partner's signing key under the new PIN (only the wrapped data key changes; the
 * key is never decrypted to storage). Same value 4007; wrong old PIN 4006, the fifth in a row 403,
 * after which signing is locked until the operator unlocks it. A successful change resets the count.
 */
export async function changePartnerPin(deps: { vault: KeyVault }, partner: PartnerRow, input: { oldPin: string; newPin: string }): Promise<void> {
  // The PIN KDF normalises case too; lower-casing here keeps the 4007 check exact.
  await deps.vault.changePin(partner.key_id, input.oldPin.toLowerCase(), input.newPin.toLowerCase());
}
