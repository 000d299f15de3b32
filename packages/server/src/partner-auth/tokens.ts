import { hkdfSync, randomBytes } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import { AppError } from '../errors/app-error.ts';
import { Errors } from '../errors/codes.ts';

/** The one algorithm access tokens are signed and accepted with. */
export const TOKEN_ALGORITHM = 'HS256';
/** `aud` of a partner access token. */
export const PARTNER_TOKEN_AUDIENCE = 'wallet-service:partner';
/** The specification's lifetime of an access token: 24 hours. */
export const PARTNER_TOKEN_LIFETIME_SECONDS = 24 * 60 * 60;

const TOKEN_KEY_INFO = 'wallet-service jwt v1';
/** Longer values are not tokens this service issued; refusing them early bounds the work. */
const MAX_TOKEN_LENGTH = 2048;

/**
 * The HMAC key of access tokens: HKDF-SHA256 of the master key with its own info string, so it is
 * stable across restarts and processes and never equal to any other key derived from the master key.
 */
export function deriveTokenKey(masterKey: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', masterKey, new Uint8Array(0), TOKEN_KEY_INFO, 32));
}

/** The claims of a verified partner token. */
export interface PartnerTokenClaims {
  /** The partner id. */
  sub: string;
  /** partners.token_version when the token was issued; a password change bumps it. */
  ver: number;
  exp: number;
}

export interface TokenContext {
  key: Uint8Array;
  /** The service's public URL: issuer of every token. */
  issuer: string;
}

/**
 * Signs a 24-hour access token for a partner.
 *
 * @example
 * const token = await issuePartnerToken({ key: services.tokenKey, issuer: config.publicUrl }, partner.id, partner.token_version);
 */
export async function issuePartnerToken(
  context: TokenContext,
  partnerId: string,
  tokenVersion: number,
  now: Date = new Date(),
): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({ ver: tokenVersion })
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, typ: 'JWT' })
    .setSubject(partnerId)
    .setIssuer(context.issuer)
    .setAudience(PARTNER_TOKEN_AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + PARTNER_TOKEN_LIFETIME_SECONDS)
    .setJti(randomBytes(16).toString('hex'))
    .sign(context.key);
}

/**
 * Verifies signature, algorithm (HS256 only), issuer, audience and lifetime. Throws AppError 4002
 * for a token that is genuine but expired, 4001 for anything else that is not a token of ours.
 */
export async function verifyPartnerToken(context: TokenContext, token: string): Promise<PartnerTokenClaims> {
  if (token.length > MAX_TOKEN_LENGTH) throw new AppError(Errors.InvalidAccessToken);
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, context.key, {
      algorithms: [TOKEN_ALGORITHM],
      issuer: context.issuer,
      audience: PARTNER_TOKEN_AUDIENCE,
      requiredClaims: ['sub', 'exp', 'iat'],
      clockTolerance: 0,
    }));
  } catch (error) {
    // jose checks the signature before the claims: only a token we signed can be "expired".
    if (error instanceof errors.JWTExpired) throw new AppError(Errors.ExpiredAccessToken);
    throw new AppError(Errors.InvalidAccessToken, { cause: error });
  }
  const { sub, ver, exp } = payload;
  if (typeof sub !== 'string' || !Number.isSafeInteger(ver) || typeof exp !== 'number') throw new AppError(Errors.InvalidAccessToken);
  return { sub, ver: ver as number, exp };
}
