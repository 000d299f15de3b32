import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import type { Config } from '../config/config.ts';
import type { Store } from '../store/database.ts';
import type { SignInThrottle } from '../sign-in-guard/throttle.ts';
import { epochSeconds } from '../store/database.ts';
import type { UserRow } from '../store/schema.ts';
import { USER_STATUS } from '../users/commands.ts';
import { findUserByEmail } from '../users/store.ts';
import { findSessionByTokenHash, insertSession, listLiveSessions, revokeMemberSessions, revokeSession } from './store.ts';
import { Errors, type ErrorCode } from '../errors/codes.ts';

/**
 * Wallet-app sessions: an opaque token (256 random bits) of which the store keeps only the SHA-256.
 * The wallet app keeps it in an HttpOnly cookie (its script never sees it); API clients send it as
 * `Authorization: Bearer`. Sessions expire after `walletApp.sessionLifetimeSeconds` and are revoked
 * by sign-out (one, or all of a member's).
 */
export interface SignedIn {
  /** Absent when the session went into the cookie. */
  session_token?: string;
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

/** The cookie that carries the wallet app's session. */
export const SESSION_COOKIE = 'wallet_session';
/**
 * The header every write from the wallet app carries. A cookie goes with any request the browser
 * sends, including a form another site posts; a custom header cannot be set cross-site without a
 * CORS preflight this service never grants, so its presence proves the request came from the app.
 */
export const APP_HEADER = 'x-wallet-app';

/** What authenticateRequest reads of an HTTP request (a Fastify request fits). */
export interface MemberRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One live session as the session list shows it. */
export interface SessionSummary {
  id: string;
  created_at: number;
  expires_at: number;
  user_agent: string | null;
  current: boolean;
}

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/** A member who is not active is refused sign-in with the code of the status (set by `user set-status`). */
const REFUSED_STATUS: Record<number, ErrorCode> = {
  [USER_STATUS.banned]: Errors.AccountBanned,
  [USER_STATUS.suspended]: Errors.AccountSuspended,
  [USER_STATUS.unsubscribed]: Errors.AccountUnsubscribed,
};

/**
 * Signs a member in with e-mail and password (SHA-256 hex): an unknown e-mail and a wrong password
 * answer alike (4004 "the e-mail or the password is wrong", after the same password hash, counted
 * alike), so sign-in does not tell which e-mails are members; 422 suspended, 421 banned, 423
 * unsubscribed (only with the right password); the back-off is the partners' (4008).
 */
export async function signIn(
  deps: { config: Readonly<Config>; store: Store; signInThrottle: SignInThrottle },
  input: { email: string; password: string; address: string; userAgent?: string | undefined },
): Promise<SignedIn & { session_token: string }> {
  if (!SHA256_HEX.test(input.password)) throw new AppError(Errors.BadRequest, { detail: 'password must be the SHA-256 hex of the password' });
  const login = input.email.trim().toLowerCase();
  const member = await deps.signInThrottle
    .checkPassword({ address: input.address, login, password: input.password }, () => findUserByEmail(deps.store.db, login))
    .catch((error: unknown) => {
      if (error instanceof AppError && (error.code === Errors.UserNotFound || error.code === Errors.WrongPassword)) {
        throw new AppError(Errors.WrongPassword, { detail: 'the e-mail or the password is wrong' });
      }
      throw error;
    });
  if (member.status !== USER_STATUS.active) throw new AppError(REFUSED_STATUS[member.status] ?? Errors.AccountStatusUndefined);
  return startSession(deps, member, input.userAgent);
}

/** A new session of a member (sign-in, or the end of sign-up). */
export async function startSession(
  deps: { config: Readonly<Config>; store: Store },
  member: UserRow,
  userAgent?: string | undefined,
): Promise<SignedIn & { session_token: string }> {
  const token = randomBytes(32).toString('base64url');
  const now = epochSeconds();
  const expiresAt = now + deps.config.walletApp.sessionLifetimeSeconds;
  await insertSession(deps.store.db, {
    id: randomUUID(),
    token_hash: tokenHash(token),
    user_id: member.id,
    created_at: now,
    expires_at: expiresAt,
    user_agent: userAgent ? userAgent.slice(0, 300) : null,
  });
  return { session_token: token, expires_at: expiresAt, member: summarize(member) };
}

/**
 * The session of a bearer token: 4003 when none is given, 402 when it is unknown, expired or revoked.
 * Not exported: routes take authenticateRequest, which also reads the wallet app's cookie.
 */
async function bearerSession(deps: { store: Store }, authorization: string | undefined): Promise<Session> {
  const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  if (!token) throw new AppError(Errors.MissingAuthorization);
  return sessionOfToken(deps, token);
}

/**
 * The session of a request: `Authorization: Bearer` (API clients), else the session cookie (the
 * wallet app). A write (any method but GET and HEAD) that rides on the cookie must carry
 * `X-Wallet-App: 1`, else 4009 (see APP_HEADER). 4003 when neither is given, 402 as bearerSession.
 */
export async function authenticateRequest(deps: { store: Store }, request: MemberRequest): Promise<Session> {
  const authorization = headerValue(request, 'authorization');
  if (authorization) return bearerSession(deps, authorization);
  const token = sessionCookieOf(request);
  if (!token) throw new AppError(Errors.MissingAuthorization);
  if (!isSafeMethod(request.method) && !fromWalletApp(request)) throw new AppError(Errors.CrossSiteRequest);
  return sessionOfToken(deps, token);
}

/** Whether a request says it comes from the wallet app's own script (`X-Wallet-App: 1`). */
export function fromWalletApp(request: MemberRequest): boolean {
  return headerValue(request, APP_HEADER) === '1';
}

function isSafeMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}

function headerValue(request: MemberRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The session token of the request's cookie header, if any. */
export function sessionCookieOf(request: MemberRequest): string | undefined {
  for (const part of (headerValue(request, 'cookie') ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE && value.length > 0) return value.join('=') || undefined;
  }
  return undefined;
}

/**
 * The Set-Cookie value of a session: HttpOnly (no script reads it), SameSite=Lax (not sent with
 * cross-site subrequests or posts), Path=/ (the app and its API share the origin), Secure on https.
 * Without a token it clears the cookie.
 */
export function sessionCookie(session: { token: string; maxAgeSeconds: number } | undefined, secure: boolean): string {
  const value = session ? `${SESSION_COOKIE}=${session.token}; Max-Age=${session.maxAgeSeconds}` : `${SESSION_COOKIE}=; Max-Age=0`;
  return `${value}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

async function sessionOfToken(deps: { store: Store }, token: string): Promise<Session> {
  const row = await findSessionByTokenHash(deps.store.db, tokenHash(token));
  if (!row || row.revoked_at !== null || Number(row.expires_at) <= epochSeconds()) throw new AppError(Errors.InvalidSession);
  const { session_id: sessionId, expires_at: _expiresAt, revoked_at: _revokedAt, ...member } = row;
  return { sessionId, member };
}

export async function signOut(deps: { store: Store }, sessionId: string): Promise<void> {
  // Of sign-outs racing on one session one ends it; the others find it ended, as a later call would (402).
  if (!(await revokeSession(deps.store.db, sessionId, epochSeconds()))) throw new AppError(Errors.InvalidSession);
}

/** The member's sessions that are neither expired nor revoked, newest first. */
export async function listSessions(deps: { store: Store }, session: Session): Promise<SessionSummary[]> {
  const rows = await listLiveSessions(deps.store.db, session.member.id, epochSeconds());
  return rows.map((row) => ({
    id: row.id,
    created_at: Number(row.created_at),
    expires_at: Number(row.expires_at),
    user_agent: row.user_agent ?? null,
    current: row.id === session.sessionId,
  }));
}

/** Signs out one of the member's own sessions (404 for a session that is not theirs or already ended). */
export async function signOutSession(deps: { store: Store }, session: Session, sessionId: string): Promise<void> {
  const live = await listLiveSessions(deps.store.db, session.member.id, epochSeconds());
  if (!live.some((row) => row.id === sessionId)) throw new AppError(Errors.NotFound, { detail: 'no such session' });
  // Guarded: of calls racing to end one session, one ends it and the others find it gone (404).
  if (!(await revokeSession(deps.store.db, sessionId, epochSeconds()))) throw new AppError(Errors.NotFound, { detail: 'no such session' });
}

/** Signs the member out everywhere, this session included; how many sessions ended. */
export async function signOutEverywhere(deps: { store: Store }, session: Session): Promise<number> {
  return revokeMemberSessions(deps.store.db, session.member.id, epochSeconds());
}

export function summarize(member: UserRow): MemberSummary {
  return { email: member.email, name: member.name, main_address: member.main_address, status: member.status };
}

function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
