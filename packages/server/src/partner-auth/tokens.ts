import { hkdfSync, randomBytes } from 'node:crypto';
import { decodeProtectedHeader, errors, jwtVerify, SignJWT } from 'jose';
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

/**
 * Each HMAC key imported once as a WebCrypto key: given the bytes, jose imports them again at every
 * call, an extra round through the crypto thread pool on the path of every Family A request.
 */
const importedKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();
function hmacKey(key: Uint8Array): Promise<CryptoKey> {
  let imported = importedKeys.get(key);
  if (!imported) {
    imported = crypto.subtle.importKey('raw', Uint8Array.from(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    importedKeys.set(key, imported);
  }
  return imported;
}

/** The claims of a verified partner token. */
export interface PartnerTokenClaims {
  /** The partner id. */
  sub: string;
  /** partners.token_version when the token was issued; a password change bumps it. */
  ver: number;
  exp: number;
}

/**
 * The HMAC keys of access tokens, each derived from a master key and named (`kid`) by that key's
 * public id: new tokens are signed with one, and a token is checked against the keys its `kid`
 * may name (partner-auth/token-keys.ts: both keys while a master key rotation rolls out).
 */
export interface TokenKeys {
  signing(): { id: string; key: Uint8Array };
  /** The keys a token with this `kid` (none: a token from before kids) may be signed with; none when it names no key accepted now. */
  verifying(kid: string | undefined): Promise<Uint8Array[]>;
}

export interface TokenContext {
  keys: TokenKeys;
  /** The service's public URL: issuer of every token. */
  issuer: string;
}

/**
 * Signs a 24-hour access token for a partner.
 *
 * @example
 * const token = await issuePartnerToken({ keys: services.tokenKeys, issuer: config.publicUrl }, partner.id, partner.token_version);
 */
export async function issuePartnerToken(
  context: TokenContext,
  partnerId: string,
  tokenVersion: number,
  now: Date = new Date(),
): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  const signing = context.keys.signing();
  return new SignJWT({ ver: tokenVersion })
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, typ: 'JWT', kid: signing.id })
    .setSubject(partnerId)
    .setIssuer(context.issuer)
    .setAudience(PARTNER_TOKEN_AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + PARTNER_TOKEN_LIFETIME_SECONDS)
    .setJti(randomBytes(16).toString('hex'))
    .sign(await hmacKey(signing.key));
}

/**
 * Verifies signature, algorithm (HS256 only), issuer, audience and lifetime, against the keys the
 * token's `kid` may name. Throws AppError 4002 for a token that is genuine but expired, 4001 for
 * anything else that is not a token of ours (a token under a retired master key included).
 */
export async function verifyPartnerToken(context: TokenContext, token: string): Promise<PartnerTokenClaims> {
  if (token.length > MAX_TOKEN_LENGTH) throw new AppError(Errors.InvalidAccessToken);
  const known = verifiedTokens.get(token);
  if (known && known.issuer === context.issuer) {
    // Only the lifetime changes with time (jose's check, clockTolerance 0); the key must still be accepted.
    if (known.claims.exp <= Math.floor(Date.now() / 1000)) {
      verifiedTokens.delete(token);
      throw new AppError(Errors.ExpiredAccessToken);
    }
    if ((await context.keys.verifying(known.kid)).includes(known.key)) return known.claims;
    verifiedTokens.delete(token);
  }
  let kid: unknown;
  try {
    ({ kid } = decodeProtectedHeader(token));
  } catch (error) {
    throw new AppError(Errors.InvalidAccessToken, { cause: error });
  }
  const tokenKid = typeof kid === 'string' ? kid : undefined;
  let payload: Record<string, unknown> | undefined;
  let verifiedWith: Uint8Array | undefined;
  let failure: unknown;
  for (const key of await context.keys.verifying(tokenKid)) {
    verifiedWith = key;
    try {
      ({ payload } = await jwtVerify(token, await hmacKey(key), {
        algorithms: [TOKEN_ALGORITHM],
        issuer: context.issuer,
        audience: PARTNER_TOKEN_AUDIENCE,
        requiredClaims: ['sub', 'exp', 'iat'],
        clockTolerance: 0,
      }));
      break;
    } catch (error) {
      // jose checks the signature before the claims: only a token we signed can be "expired".
      if (error instanceof errors.JWTExpired) throw new AppError(Errors.ExpiredAccessToken);
      // Another key may have signed it (a token without kid, from before a rotation).
      if (error instanceof errors.JWSSignatureVerificationFailed) {
        failure = error;
        continue;
      }
      throw new AppError(Errors.InvalidAccessToken, { cause: error });
    }
  }
  if (!payload) throw new AppError(Errors.InvalidAccessToken, { cause: failure });
  const { sub, ver, exp } = payload;
  if (typeof sub !== 'string' || !Number.isSafeInteger(ver) || typeof exp !== 'number') throw new AppError(Errors.InvalidAccessToken);
  // Shared by every later call with this token: frozen, so no caller can change another's.
  const claims = Object.freeze({ sub, ver: ver as number, exp });
  rememberVerified(token, { claims, kid: tokenKid, key: verifiedWith!, issuer: context.issuer });
  return claims;
}

/** How many verified tokens are kept; past that the oldest is dropped. */
const VERIFIED_TOKENS_KEPT = 10_000;

interface VerifiedToken {
  claims: PartnerTokenClaims;
  kid: string | undefined;
  /** The key whose signature it carries: the token is accepted again only while that key is. */
  key: Uint8Array;
  issuer: string;
}

/**
 * Tokens whose signature and claims were checked, by their text: a partner sends the same token
 * with every call for up to a day, and checking it again (a round through the crypto thread pool)
 * took 0.3 of the 0.7 ms of the partner API's onRequest stage (A7, median of 350 calls). Only genuine
 * tokens get in, so a caller without one cannot fill it.
 */
const verifiedTokens = new Map<string, VerifiedToken>();

function rememberVerified(token: string, verified: VerifiedToken): void {
  if (verifiedTokens.size >= VERIFIED_TOKENS_KEPT) verifiedTokens.delete(verifiedTokens.keys().next().value!);
  verifiedTokens.set(token, verified);
}
