import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import { PARTNER_STATUS } from '../partners/commands.ts';
import { findPartnerById } from '../partners/store.ts';
import type { Config } from '../config/config.ts';
import type { Store } from '../store/database.ts';
import type { PartnerRow } from '../store/schema.ts';
import { verifyPartnerToken, type TokenKeys } from './tokens.ts';
import { Errors } from '../errors/codes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The partner whose access token authorised this Family A request (set by authenticatePartner). */
    partner: PartnerRow | null;
  }
}

/**
 * The token of an Authorization header: the raw token as the specification sends it, or leniently
 * `Bearer <token>`. Undefined when the header is missing or blank.
 */
export function tokenFromAuthorization(header: string | undefined): string | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  const bearer = /^bearer\s+(\S+)$/i.exec(value);
  return bearer ? bearer[1] : value;
}

/**
 * The partner an Authorization header speaks for. Refusals, in this order: no header 4003; not a
 * token of ours (forged, malformed, other algorithm, issuer or audience) 4001; expired 4002; partner
 * no longer exists 4001; issued before the last password change 4044; account not approved (its
 * status code: 425, 421, 422, 423 or 424); approved but without a card contract 4005.
 */
export async function partnerFromAuthorization(deps: { config: Readonly<Config>; store: Store; tokenKeys: TokenKeys }, header: string | undefined): Promise<PartnerRow> {
  const token = tokenFromAuthorization(header);
  if (!token) throw new AppError(Errors.MissingAuthorization);
  const claims = await verifyPartnerToken({ keys: deps.tokenKeys, issuer: deps.config.publicUrl }, token);
  const partner = await findPartnerById(deps.store.db, claims.sub);
  if (!partner) throw new AppError(Errors.InvalidAccessToken, { detail: 'the partner of this token no longer exists' });
  if (Number(partner.token_version) !== claims.ver) throw new AppError(Errors.UnknownAccessToken);
  assertPartnerMayAct(partner);
  return partner;
}

/** Status and contract checks shared by sign-in and every authorised call. */
export function assertPartnerMayAct(partner: Pick<PartnerRow, 'status' | 'contract_address'>): void {
  switch (partner.status) {
    case PARTNER_STATUS.approved:
      break;
    case PARTNER_STATUS.pending:
      throw new AppError(Errors.NotYetApproved);
    case PARTNER_STATUS.banned:
      throw new AppError(Errors.AccountBanned);
    case PARTNER_STATUS.suspended:
      throw new AppError(Errors.AccountSuspended);
    case PARTNER_STATUS.unsubscribed:
      throw new AppError(Errors.AccountUnsubscribed);
    default:
      throw new AppError(Errors.AccountStatusUndefined);
  }
  if (!partner.contract_address) throw new AppError(Errors.NoContractAddress);
}

/**
 * onRequest hook of every authorised Family A route: runs before the body is read, so an
 * unauthorised upload is refused without receiving it.
 */
export async function authenticatePartner(this: FastifyInstance, request: FastifyRequest): Promise<void> {
  request.partner = await partnerFromAuthorization(this.services, request.headers.authorization);
}

/** The authenticated partner of a request that went through authenticatePartner. */
export function requestPartner(request: FastifyRequest): PartnerRow {
  if (!request.partner) throw new Error('route is missing the authenticatePartner hook');
  return request.partner;
}
