import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import type { Config } from '../config/config.ts';
import type { Store } from '../store/database.ts';
import type { SignInThrottle } from '../sign-in-guard/throttle.ts';
import { epochSeconds } from '../store/database.ts';
import type { UserRow } from '../store/schema.ts';
import { USER_STATUS } from '../users/commands.ts';
import { findUserByEmail } from '../users/store.ts';
import { findSessionByTokenHash, insertSession, revokeSession } from './store.ts';
import { Errors, type ErrorCode } from '../errors/codes.ts';

/**
 * Wallet-app sessions: an opaque bearer token (256 random bits) of which the store keeps only the
 * SHA-256. Sessions expire after `walletApp.sessionLifetimeSeconds` and are revoked by sign-out.
 */
export interface SignedIn {
  session_token: string;
  expires_at: number;
  member: MemberSummary;
}

export interface MemberSummary {
  email: string;
  name: string;
  main_address: string;
  status: number;
}

export interface Session {
  sessionId: string;
  member: UserRow;
}

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/** A member who is not active is refused sign-in with the code of the status (set by `user set-status`). */
const REFUSED_STATUS: Record<number, ErrorCode> = {
  [USER_STATUS.banned]: Errors.AccountBanned,
  [USER_STATUS.suspended]: Errors.AccountSuspended,
  [USER_STATUS.unsubscribed]: Errors.AccountUnsubscribed,
};

/**
 * Signs a member in with e-mail and password (SHA-256 hex): 406 unknown, 4004 wrong password, 422
 * suspended, 421 banned, 423 unsubscribed; wrong passwords and unknown e-mails count towards the same back-off as partners' (4008).
 */
export async function signIn(deps: { config: Readonly<Config>; store: Store; signInThrottle: SignInThrottle }, input: { email: string; password: string; address: string }): Promise<SignedIn> {
  if (!SHA256_HEX.test(input.password)) throw new AppError(Errors.BadRequest, { detail: 'password must be the SHA-256 hex of the password' });
  const member = await deps.signInThrottle.checkPassword(input.address, input.password, () =>
    findUserByEmail(deps.store.db, input.email.trim().toLowerCase()),
  );
  if (member.status !== USER_STATUS.active) throw new AppError(REFUSED_STATUS[member.status] ?? Errors.AccountStatusUndefined);
  const token = randomBytes(32).toString('base64url');
  const now = epochSeconds();
  const expiresAt = now + deps.config.walletApp.sessionLifetimeSeconds;
  await insertSession(deps.store.db, { id: randomUUID(), token_hash: tokenHash(token), user_id: member.id, created_at: now, expires_at: expiresAt });
  return { session_token: token, expires_at: expiresAt, member: summarize(member) };
}

/** The session of a bearer token: 4003 when none is given, 402 when it is unknown, expired or revoked. */
export async function authenticate(deps: { store: Store }, authorization: string | undefined): Promise<Session> {
  const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  if (!token) throw new AppError(Errors.MissingAuthorization);
  const row = await findSessionByTokenHash(deps.store.db, tokenHash(token));
  if (!row || row.revoked_at !== null || Number(row.expires_at) <= epochSeconds()) throw new AppError(Errors.InvalidSession);
  const { session_id: sessionId, expires_at: _expiresAt, revoked_at: _revokedAt, ...member } = row;
  return { sessionId, member };
}

export async function signOut(deps: { store: Store }, sessionId: string): Promise<void> {
  await revokeSession(deps.store.db, sessionId, epochSeconds());
}

export function summarize(member: UserRow): MemberSummary {
  return { email: member.email, name: member.name, main_address: member.main_address, status: member.status };
}

function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
