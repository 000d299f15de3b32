import { AppError } from '../../errors/app-error.ts';
import { findPartnerByEmail } from '../../partners/store.ts';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/database.ts';
import type { SignInThrottle } from '../../sign-in-guard/throttle.ts';
import type { PartnerRow } from '../../store/schema.ts';
import { monthKey } from '../../lib/time.ts';
import { assertPartnerMayAct } from '../../partner-auth/authenticate.ts';
import { issuePartnerToken, type TokenKeys } from '../../partner-auth/tokens.ts';
import type { PartnerAccount } from './schema.ts';

export interface SignInInput {
  email: string;
  /** SHA-256 hex of the password, as sent. */
  password: string;
  /** Client address, for the wrong-password back-off. */
  address: string;
}

/**
 * A1: checks the password and answers the partner account with a fresh 24-hour access token.
 * Refusals in order: this address (for this e-mail, or over all) waiting after wrong passwords
 * 4008; unknown e-mail 406 (the specification's code, kept; counted and timed as a wrong password);
 * wrong password 4004; not approved 425, banned 421, suspended 422, unsubscribed 423,
 * any other status 424; approved without a card contract 4005.
 */
export async function signIn(deps: { config: Readonly<Config>; store: Store; signInThrottle: SignInThrottle; tokenKeys: TokenKeys }, input: SignInInput): Promise<PartnerAccount> {
  const partner = await deps.signInThrottle.checkPassword({ address: input.address, login: input.email, password: input.password }, () =>
    findPartnerByEmail(deps.store.db, input.email.trim().toLowerCase()),
  );
  assertPartnerMayAct(partner);
  const accessToken = await issuePartnerToken(
    { keys: deps.tokenKeys, issuer: deps.config.publicUrl },
    partner.id,
    Number(partner.token_version),
  );
  return presentPartnerAccount(deps, partner, accessToken);
}

/** The account object of A1. mint_count counts the current month only (it resets on the 1st). */
export function presentPartnerAccount(deps: { config: Readonly<Config> }, partner: PartnerRow, accessToken: string): PartnerAccount {
  const currentMonth = monthKey(new Date(), deps.config.timeZone);
  return {
    email: partner.email,
    main_address: partner.main_address,
    contract_address: partner.contract_address ?? '',
    name: partner.name,
    phone: partner.phone,
    service_name: partner.service_name,
    access_token: accessToken,
    status: partner.status,
    mint_limit: Number(partner.mint_limit),
    mint_count: partner.mint_period === currentMonth ? Number(partner.mint_count) : 0,
  };
}
