import { sha256, stringToBytes } from 'viem';
import type { CardMetadata, CardPage, ClaimView, Member, RequestOutcome, RequestView, SignedIn } from './api-types.ts';

/**
 * The wallet-app API (`/v2/wallet-app`, docs/app2app.md) and the two read-only routes the app uses
 * besides it. Everything about how a session is carried lives in `session` below: today a bearer
 * token in sessionStorage; when the service moves to an HttpOnly cookie, `session` becomes a no-op
 * (the browser sends the cookie) plus a CSRF header, and nothing else in the app changes.
 */
const API = '/v2/wallet-app';

const session = {
  storageKey: 'wallet-session',
  /** Headers that carry the session on a request. */
  headers(): Record<string, string> {
    const token = sessionStorage.getItem(this.storageKey);
    return token ? { authorization: `Bearer ${token}` } : {};
  },
  remember(signedIn: SignedIn): void {
    sessionStorage.setItem(this.storageKey, signedIn.session_token);
  },
  forget(): void {
    sessionStorage.removeItem(this.storageKey);
  },
  /** Whether there may be a session to try (the service still decides: 402 ends it). */
  present(): boolean {
    return sessionStorage.getItem(this.storageKey) !== null;
  },
};

/** An error answer of the service: its registry code, message and detail. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: number,
    readonly err: string,
    readonly detail: string | undefined,
    /** The whole body, e.g. a keyed request body with `request_key` and `status`. */
    readonly body: Record<string, unknown>,
  ) {
    super(`${code}: ${detail ?? err}`);
  }
}

/** Called when the service says the session is over (402, 4003): the app goes back to sign-in. */
let onSessionEnded: () => void = () => {};
export function whenSessionEnds(listener: () => void): void {
  onSessionEnded = listener;
}

async function call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: object): Promise<T> {
  const headers: Record<string, string> = { ...session.headers() };
  // A POST without a body must not say it sends JSON (the service refuses an empty JSON body).
  if (body) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : null, credentials: 'same-origin' });
  const data = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.ok) return data as T;
  const error = (typeof data.error === 'object' && data.error !== null ? data.error : data) as { code?: number; err?: string; message?: string };
  const code = typeof error.code === 'number' ? error.code : response.status;
  if (code === 402 || code === 4003) {
    session.forget();
    onSessionEnded();
  }
  const detail = error.message && error.message !== error.err ? error.message : undefined;
  throw new ApiError(response.status, code, error.err ?? response.statusText, detail, data);
}

/** SHA-256 hex: what the API takes in place of a password or PIN (works on plain-http origins too). */
export function hashSecret(text: string): string {
  return sha256(stringToBytes(text)).slice(2);
}

const requestPath = (key: string) => `${API}/a2a/requests/${encodeURIComponent(key)}`;

export const api = {
  hasSession: () => session.present(),

  async signIn(email: string, password: string): Promise<SignedIn> {
    const signedIn = await call<SignedIn>('POST', `${API}/sessions`, { email, password: hashSecret(password) });
    session.remember(signedIn);
    return signedIn;
  },

  async signOut(): Promise<void> {
    try {
      await call('DELETE', `${API}/sessions/current`);
    } finally {
      session.forget();
    }
  },

  me: () => call<Member>('GET', `${API}/me`),

  /** Opens a request (prepared becomes requested) and returns what approval will do. */
  openRequest: (key: string) => call<RequestView>('POST', `${requestPath(key)}/open`),
  /** The request as it stands, without changing it (a finished one too). */
  viewRequest: (key: string) => call<RequestView>('GET', requestPath(key)),

  /** The B3 answer after execution; a request that ended in error is an outcome too, not a throw. */
  async approveRequest(key: string, pin: string): Promise<RequestOutcome> {
    try {
      return await call<RequestOutcome>('POST', `${requestPath(key)}/approve`, { pin: hashSecret(pin) });
    } catch (error) {
      if (error instanceof ApiError && error.body.request_key && error.body.status === 'error' && error.code !== 6001) {
        return error.body as unknown as RequestOutcome;
      }
      throw error;
    }
  },

  cancelRequest: (key: string) => call<RequestOutcome>('POST', `${requestPath(key)}/cancel`),

  viewClaim: (claimId: string, secret: string) => call<ClaimView>('POST', `${API}/claims/${claimId}/view`, { secret }),
  claim: (claimId: string, secret: string) => call<ClaimView & { tx_hash: string }>('POST', `${API}/claims/${claimId}/claim`, { secret }),

  /** B4: the cards `holder` has under `contract`, a page at a time (public, read-only). */
  cardsOf: (contract: string, holder: string, chain: string, cursor: string) =>
    call<CardPage>('GET', `/v2/a2a/cards?${new URLSearchParams({ sca: contract, eoa: holder, chain, ...(cursor ? { cursor } : {}) })}`),

  /**
   * A card's public metadata from its card_uri. Read from this origin: card_uri names the
   * service's public URL, which is this origin or one in front of it.
   */
  cardMetadata: (cardUri: string) => call<CardMetadata>('GET', new URL(cardUri, location.href).pathname),
};
