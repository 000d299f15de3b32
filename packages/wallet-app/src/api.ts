import { sha256, stringToBytes } from 'viem';
import type { Activity, CardMetadata, CardPage, CardSent, Claimed, ClaimView, HeldCard, Member, MemberBappCards, MemberBappList, PhoneCountries, RequestOutcome, RequestView, SendCardBody, SignedIn, TransferQuote, TransferQuoteBody, TransferSent } from './wire.ts';

/**
 * The wallet-app API (`/v2/wallet-app`, docs/app2app.md) and the two read-only routes the app uses
 * besides it. The session is an HttpOnly cookie the service sets at sign-in or sign-up: the script
 * never holds the token, the browser sends it. Every request says `X-Wallet-App: 1`, which the
 * service requires on writes that ride on the cookie (another site's page cannot send that header).
 */
const API = '/v2/wallet-app';

const session = {
  headers(): Record<string, string> {
    return { 'x-wallet-app': '1' };
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

/** The service could not be reached (offline, or the service is down): nothing is known to have happened. */
export class NetworkError extends Error {
  override name = 'NetworkError';
}

/** Called when the service says the session is over (402, 4003): the app goes back to sign-in. */
let onSessionEnded: () => void = () => {};
export function whenSessionEnds(listener: () => void): void {
  onSessionEnded = listener;
}

/** Called with false when a request cannot reach the service, and with true once one does again. */
let onReachability: (reachable: boolean) => void = () => {};
export function whenReachabilityChanges(listener: (reachable: boolean) => void): void {
  onReachability = listener;
}

/** Requests numbered as they start, and the number of the newest one that found no service. */
let started = 0;
let lastUnreached = 0;

async function reach(path: string, init: RequestInit): Promise<Response> {
  const number = ++started;
  try {
    const response = await fetch(path, { ...init, credentials: 'same-origin' });
    // A late answer to a request sent before one that failed says nothing of the service now.
    if (number > lastUnreached) onReachability(true);
    return response;
  } catch (error) {
    lastUnreached = Math.max(lastUnreached, number);
    onReachability(false);
    throw new NetworkError(error instanceof Error ? error.message : String(error));
  }
}

export async function call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: object): Promise<T> {
  const headers: Record<string, string> = { ...session.headers() };
  // A POST without a body must not say it sends JSON (the service refuses an empty JSON body).
  if (body) headers['content-type'] = 'application/json';
  const response = await reach(path, { method, headers, body: body ? JSON.stringify(body) : null });
  const data = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.ok) return data as T;
  const error = (typeof data.error === 'object' && data.error !== null ? data.error : data) as { code?: number; err?: string; message?: string };
  const code = typeof error.code === 'number' ? error.code : response.status;
  if (code === 402 || code === 4003) onSessionEnded();
  const detail = error.message && error.message !== error.err ? error.message : undefined;
  throw new ApiError(response.status, code, error.err ?? response.statusText, detail, data);
}

/** SHA-256 hex: what the API takes in place of a password or PIN (works on plain-http origins too). */
export function hashSecret(text: string): string {
  return sha256(stringToBytes(text)).slice(2);
}

let phoneCountries: Promise<PhoneCountries> | undefined;

const requestPath = (key: string) => `${API}/a2a/requests/${encodeURIComponent(key)}`;

export const api = {
  signIn: (email: string, password: string) => call<SignedIn>('POST', `${API}/sessions`, { email, password: hashSecret(password) }),

  signOut: () => call('DELETE', `${API}/sessions/current`),

  /** The signed-in member, or null: asked without a failed load when signed out. */
  me: () => call<{ member: Member | null }>('GET', `${API}/sessions/current`).then((answer) => answer.member),

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
  claim: (claimId: string, secret: string) => call<Claimed>('POST', `${API}/claims/${claimId}/claim`, { secret }),

  /** B4: the cards `holder` has under `contract`, a page at a time (public, read-only). */
  cardsOf: (contract: string, holder: string, chain: string, cursor: string) =>
    call<CardPage>('GET', `/v2/a2a/cards?${new URLSearchParams({ sca: contract, eoa: holder, chain, ...(cursor ? { cursor } : {}) })}`),

  /**
   * A card's public metadata from its card_uri. Read from this origin: card_uri names the
   * service's public URL, which is this origin or one in front of it.
   */
  cardMetadata: (cardUri: string) => call<CardMetadata>('GET', new URL(cardUri, location.href).pathname),

  /** The member's cards grouped by BApp, 100 BApps a page. */
  cards: (cursor = '') => call<MemberBappList>('GET', `${API}/cards${cursor ? `?${new URLSearchParams({ cursor })}` : ''}`),
  /** More of the member's cards of one BApp, after its cards_next_cursor. */
  bappCards: (nftId: number, cursor: string) => call<MemberBappCards>('GET', `${API}/cards/${nftId}?${new URLSearchParams({ cursor })}`),
  /** A held card with its secure part and status (404 for anyone but its holder). */
  card: (nftId: number, cardId: number) => call<HeldCard>('GET', `${API}/cards/${nftId}/${cardId}`),
  sendCard: (nftId: number, cardId: number, pin: string, to: Omit<SendCardBody, 'pin'>) =>
    call<CardSent>('POST', `${API}/cards/${nftId}/${cardId}/send`, { pin: hashSecret(pin), ...to }),

  /** The regions a phone number may be written in, read once (public). */
  phoneCountries: () => (phoneCountries ??= call<PhoneCountries>('GET', `${API}/phone-countries`).catch((error) => {
    phoneCountries = undefined;
    throw error;
  })),
  /** The member's activity, newest first, a page at a time (next_cursor of the page before). */
  activity: (cursor = '') => call<Activity>('GET', `${API}/activity${cursor ? `?${new URLSearchParams({ cursor })}` : ''}`),

  /** Checks a send of coins or tokens: its fee and the balances, before the PIN. */
  quoteTransfer: (body: TransferQuoteBody) => call<TransferQuote>('POST', `${API}/transfers/quote`, body),
  /** Sends coins or tokens with the PIN; `key` is one per send the member means (a retry sends nothing twice). */
  sendTransfer: (body: TransferQuoteBody, pin: string, key: string) => call<TransferSent>('POST', `${API}/transfers`, { ...body, pin: hashSecret(pin), idempotency_key: key }),

  /**
   * A secure file of a held card as a data: URL: fetched with the session (the holder-only route),
   * then shown from memory, so the file never has a URL another page could load.
   */
  async secureFile(name: string): Promise<string> {
    const response = await reach(`${API}/files/secure/${encodeURIComponent(name)}`, { headers: session.headers() });
    if (!response.ok) throw new ApiError(response.status, response.status, response.statusText, undefined, {});
    const blob = await response.blob();
    return new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result as string);
      reader.onerror = () => reject(reader.error);
      reader.readAsDataURL(blob);
    });
  },
};
