import { AppError } from '../../errors/app-error.ts';
import { verifyPassword } from '../../custody/passwords.ts';
import type { Services } from '../../services.ts';
import type { PartnerRow } from '../../store/schema.ts';
import { monthKey } from '../../time.ts';
import { assertPartnerMayAct } from '../auth/authenticate.ts';
import { issuePartnerToken } from '../auth/tokens.ts';
import type { PartnerAccount } from './schema.ts';
import { SignInThrottle } from '../../sign-in-guard/throttle.ts';

export interface SignInInput {
  email: string;
  /** SHA-256 hex of the password, as sent. */
  password: string;
  /** Client address, for the wrong-password back-off. */
  address: string;
}

/**
 * A1: checks the password and answers the partner account with a fresh 24-hour access token.
 * Refusals in order: address waiting after wrong passwords 4008; unknown e-mail 406; account
 * waiting 4008; wrong password 4004; not approved 425, banned 421, suspended 422, unsubscribed 423,
 * any other status 424; approved without a card contract 4005.
 */
export async function signIn(services: Services, input: SignInInput): Promise<PartnerAccount> {
  const throttle = new SignInThrottle(services.store.db, services.config.partnerApi.signInThrottle);
  await throttle.assertAllowed({ address: input.address });
  const partner = await services.store.db
    .selectFrom('partners')
    .selectAll()
    .where('email', '=', input.email.trim().toLowerCase())
    .executeTakeFirst();
  if (!partner) {
    // Guessing e-mails counts against the address too.
    await throttle.recordFailure({ address: input.address });
    throw new AppError(406);
  }
  await throttle.assertAllowed({ address: input.address, accountId: partner.id });
  if (!(await verifyPassword(input.password, partner.password_hash))) {
    await throttle.recordFailure({ address: input.address, accountId: partner.id });
    throw new AppError(4004);
  }
  await throttle.recordSuccess(partner.id);
  assertPartnerMayAct(partner);
  const accessToken = await issuePartnerToken(
    { key: services.tokenKey, issuer: services.config.publicUrl },
    partner.id,
    Number(partner.token_version),
  );
  return presentPartnerAccount(services, partner, accessToken);
}

/** The account object of A1. mint_count counts the current month only (it resets on the 1st). */
export function presentPartnerAccount(services: Services, partner: PartnerRow, accessToken: string): PartnerAccount {
  const currentMonth = monthKey(new Date(), services.config.timeZone);
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
