import { createHash } from 'node:crypto';
import { AppError } from '../../errors/app-error.ts';
import { Errors } from '../../errors/codes.ts';

/** The person a sign-up names, as stored: name normalized, phone E.164, birth YYYY-MM-DD. */
export interface IdentityClaim {
  name: string;
  phone: string;
  birth: string;
}

/**
 * The identity check of sign-up. A real provider (a mobile-carrier or bank identity check) answers
 * the person's ci (connecting information: one stable value per real person, whatever phone or
 * e-mail they use), or refuses with the specification's codes: 431 the provider holds another ci for
 * this person than before, 432 the check itself failed, 433 the legal name does not match, 434 the
 * phone number is not the person's. An empty ci is refused by sign-up (435) and a ci that already
 * belongs to a member too (430). See docs/wallet-app.md for plugging one in.
 */
export interface IdentityVerifier {
  verify(claim: IdentityClaim): Promise<{ ci: string }>;
}

/**
 * The default check, for installations without a provider: the ci is derived from name, phone and
 * birth (SHA-256, base64), so the same three always give the same ci and two members can never share
 * them. It refuses a name without a letter or with a digit (433) and a phone that is not a full
 * international number (434), and checks nothing else: it proves no identity.
 */
export const derivedIdentity: IdentityVerifier = {
  async verify(claim) {
    if (!/\p{L}/u.test(claim.name) || /\p{N}/u.test(claim.name)) throw new AppError(Errors.MessengerNameCheckFailed, { detail: 'a legal name has letters and no digits' });
    if (!/^\+[1-9]\d{7,14}$/.test(claim.phone)) throw new AppError(Errors.MessengerPhoneCheckFailed);
    const ci = createHash('sha256').update(`wallet-service ci\n${claim.name}\n${claim.phone}\n${claim.birth}`, 'utf8').digest('base64');
    return { ci };
  },
};
