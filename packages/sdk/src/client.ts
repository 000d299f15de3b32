import { ConnectionStore, DEFAULT_STORAGE_KEY, defaultStorage } from './connection.ts';
import { callService } from './http.ts';
import { buildLinks, detectEnvironment, qrUrls, type NavigatorInfo } from './links.ts';
import {
  prepareBodies,
  type AuthParams,
  type ExecuteContractParams,
  type PrepareBody,
  type SendCardParams,
  type SendCoinParams,
  type SendTokenParams,
  type SignMessageParams,
  type SignTypedDataParams,
} from './prepare.ts';
import type {
  A2aError,
  AuthResult,
  CardList,
  ClientOptions,
  Connection,
  Environment,
  Prepared,
  RequestKey,
  RequestLinks,
  RequestOutcome,
  RequestType,
  ResultAnswer,
} from './types.ts';

/** The longest long-poll the service holds (`wait` of `GET /v2/a2a/result`), in seconds. */
export const MAX_WAIT_SECONDS = 30;

export interface PrepareFunctions {
  auth(params: AuthParams): Promise<Prepared<'auth'> | A2aError>;
  sendCoin(params: SendCoinParams): Promise<Prepared<'send_coin'> | A2aError>;
  sendToken(params: SendTokenParams): Promise<Prepared<'send_token'> | A2aError>;
  sendCard(params: SendCardParams): Promise<Prepared<'send_card'> | A2aError>;
  executeContract(params: ExecuteContractParams): Promise<Prepared<'execute_contract'> | A2aError>;
  signMessage(params: SignMessageParams): Promise<Prepared<'sign_message'> | A2aError>;
  signMessageEip191(params: SignMessageParams): Promise<Prepared<'sign_message_eip191'> | A2aError>;
  signTypedData(params: SignTypedDataParams): Promise<Prepared<'sign_typedData_v4'> | A2aError>;
}

export interface WaitOptions {
  /** Aborting rejects the wait with the signal's reason and ends the long-poll in flight. */
  signal?: AbortSignal;
  /** Resolve with the last state seen (`prepared` or `requested`) after this many milliseconds. */
  timeoutMs?: number;
  /** For transaction types: also wait until `result.status` is `success` or `fail`. */
  untilMined?: boolean;
  /** Called with the first state and with every state that differs from the one before. */
  onUpdate?: (answer: ResultAnswer) => void;
}

export interface CardListParams {
  /** The ERC-721 contract (`sca`). */
  contract: string;
  /** The holder, e.g. `getConnection().main_address`. */
  eoa: string;
  /** `next_cursor` of the previous page. */
  cursor?: string;
  /** `main` by default. */
  chain?: string;
}

export interface A2aClient {
  /** `{a2a_url}` or `{a2a_url_global}`, as the region chooses. */
  readonly baseUrl: string;
  readonly region: 'default' | 'global';
  readonly prepare: PrepareFunctions;
  /** Opens the wallet app on iOS and Android; elsewhere calls `onUnsupportedEnvironment(requestKey)`. */
  request(requestKey: string, onUnsupportedEnvironment?: (requestKey: string) => void | Promise<void>): Promise<RequestOutcome | A2aError>;
  getResult<T extends RequestType = RequestType>(requestKey: RequestKey<T>): Promise<ResultAnswer<T>>;
  waitForResult<T extends RequestType = RequestType>(requestKey: RequestKey<T>, options?: WaitOptions): Promise<ResultAnswer<T>>;
  getRequestUrl(requestKey: string): Promise<RequestLinks | A2aError>;
  getCardList(params: CardListParams): Promise<CardList | A2aError>;
  /** The addresses of the last completed auth, until `disconnect()`. */
  getConnection(): Connection | null;
  /** Deletes the stored addresses at once. */
  disconnect(): void;
}

/** True for every failure the library resolves to (`{ err, code }`). */
export function isError(value: unknown): value is A2aError {
  return typeof value === 'object' && value !== null && typeof (value as A2aError).err === 'string' && typeof (value as A2aError).code === 'number';
}

function resolveBaseUrl(given: string | undefined, what: string): string {
  const text = given ?? (globalThis as { location?: { origin?: string } }).location?.origin;
  if (!text || text === 'null') throw new TypeError(`${what} is required outside a browser page`);
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new TypeError(`${what} is not a URL: ${text}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError(`${what} must be an http or https URL: ${text}`);
  return text.replace(/\/+$/, '');
}

function defaultFetch(): typeof fetch {
  if (typeof globalThis.fetch !== 'function') throw new TypeError('no global fetch: pass options.fetch');
  return globalThis.fetch.bind(globalThis);
}

function openInPage(url: string): void {
  const location = (globalThis as { location?: { assign?: (url: string) => void } }).location;
  if (!location?.assign) throw new TypeError('no page to open the wallet link in: pass options.openUrl');
  location.assign(url);
}

function isTerminal(answer: ResultAnswer, untilMined: boolean): boolean {
  if ('err' in answer) return true;
  if (answer.status === 'canceled') return true;
  if (answer.status !== 'completed') return false;
  return !(untilMined && (answer.result as { status?: unknown }).status === 'pending');
}

/** What makes two answers differ for `onUpdate`. */
function stateOf(answer: ResultAnswer): string {
  if ('err' in answer) return `error:${answer.code}`;
  const inner = answer.status === 'completed' ? (answer.result as { status?: unknown }).status : undefined;
  return `${answer.status}:${typeof inner === 'string' ? inner : ''}`;
}

const TIMED_OUT = Symbol('timed out');

/**
 * A client of one wallet service.
 *
 * @example
 * const a2a = createClient({ baseUrl: 'https://wallet.example.com' });
 * const prepared = await a2a.prepare.auth({ bappName: 'My BApp' });
 * if (!isError(prepared)) await a2a.request(prepared.request_key, () => showQr(prepared.request_key));
 */
export function createClient(options: ClientOptions = {}): A2aClient {
  const region = options.region ?? 'default';
  const baseUrl =
    region === 'global' && options.globalBaseUrl !== undefined
      ? resolveBaseUrl(options.globalBaseUrl, 'globalBaseUrl')
      : resolveBaseUrl(options.baseUrl, 'baseUrl');
  const fetcher = options.fetch ?? defaultFetch();
  const connection = new ConnectionStore(options.storage === undefined ? defaultStorage() : options.storage, options.storageKey ?? DEFAULT_STORAGE_KEY);
  const openUrl = options.openUrl ?? openInPage;
  const regionQuery = region === 'global' ? '&region=global' : '';

  async function send<T extends RequestType>(type: T, built: PrepareBody): Promise<Prepared<T> | A2aError> {
    if ('refused' in built) return built.refused;
    const answer = await callService<Omit<Prepared<T>, 'type'>>(fetcher, `${baseUrl}/v2/a2a/prepare`, { method: 'POST', body: built.body });
    return answer.ok ? { ...answer.body, type } : answer.error;
  }

  async function readResult<T extends RequestType>(requestKey: string, wait: number, signal?: AbortSignal): Promise<ResultAnswer<T>> {
    const url = `${baseUrl}/v2/a2a/result?request_key=${encodeURIComponent(requestKey)}${wait > 0 ? `&wait=${wait}` : ''}`;
    const answer = await callService<Exclude<ResultAnswer<T>, A2aError>>(fetcher, url, signal ? { signal } : {});
    if (!answer.ok) return answer.error;
    const body = answer.body;
    if (body.status === 'completed' && typeof (body.result as Partial<AuthResult> | undefined)?.main_address === 'string') {
      connection.remember(body.result as AuthResult);
    }
    return body;
  }

  /** One long-poll that gives up (TIMED_OUT) at `deadline`, or rejects when `signal` aborts. */
  async function pollUntil<T extends RequestType>(
    requestKey: string,
    wait: number,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<ResultAnswer<T> | typeof TIMED_OUT> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const remaining = deadline - Date.now();
    const timer =
      remaining < 2 ** 31 - 1
        ? setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, remaining)
        : undefined;
    try {
      return await readResult<T>(requestKey, wait, controller.signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timedOut) return TIMED_OUT;
      throw error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async function getRequestUrl(requestKey: string): Promise<RequestLinks | A2aError> {
    const qr = qrUrls(baseUrl, requestKey, region);
    if (options.links) return { ...buildLinks(options.links, region, requestKey), ...qr };
    const answer = await callService<Omit<RequestLinks, 'url'>>(
      fetcher,
      `${baseUrl}/v2/a2a/links?request_key=${encodeURIComponent(requestKey)}${regionQuery}`,
    );
    if (!answer.ok) return answer.error;
    const { request_key, universal_link, ios_scheme_link, android_intent_link } = answer.body;
    return { request_key, url: universal_link, universal_link, ios_scheme_link, android_intent_link, ...qr };
  }

  const prepare: PrepareFunctions = {
    auth: (params) => send('auth', prepareBodies.auth(params)),
    sendCoin: (params) => send('send_coin', prepareBodies.send_coin(params)),
    sendToken: (params) => send('send_token', prepareBodies.send_token(params)),
    sendCard: (params) => send('send_card', prepareBodies.send_card(params)),
    executeContract: (params) => send('execute_contract', prepareBodies.execute_contract(params)),
    signMessage: (params) => send('sign_message', prepareBodies.sign_message(params)),
    signMessageEip191: (params) => send('sign_message_eip191', prepareBodies.sign_message_eip191(params)),
    signTypedData: (params) => send('sign_typedData_v4', prepareBodies.sign_typedData_v4(params)),
  };

  return {
    baseUrl,
    region,
    prepare,

    async request(requestKey, onUnsupportedEnvironment) {
      const environment: Environment =
        options.environment ?? detectEnvironment((globalThis as { navigator?: NavigatorInfo }).navigator);
      if (environment === 'other') {
        await onUnsupportedEnvironment?.(requestKey);
        return { request_key: requestKey, environment, opened: false };
      }
      const links = await getRequestUrl(requestKey);
      if (isError(links)) return links;
      const url = !options.schemeLinks ? links.universal_link : environment === 'ios' ? links.ios_scheme_link : links.android_intent_link;
      openUrl(url);
      return { request_key: requestKey, environment, opened: true, url };
    },

    getResult: <T extends RequestType>(requestKey: RequestKey<T>) => readResult<T>(requestKey, 0),

    async waitForResult<T extends RequestType>(
      requestKey: RequestKey<T>,
      { signal, timeoutMs, untilMined = false, onUpdate }: WaitOptions = {},
    ): Promise<ResultAnswer<T>> {
      signal?.throwIfAborted();
      const deadline = timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
      let answer = await readResult<T>(requestKey, 0, signal);
      onUpdate?.(answer);
      while (!isTerminal(answer, untilMined)) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) return answer;
        const wait = Math.max(1, Math.min(MAX_WAIT_SECONDS, Math.ceil(remaining / 1000)));
        const next = await pollUntil<T>(requestKey, wait, deadline, signal);
        if (next === TIMED_OUT) return answer;
        if (stateOf(next) !== stateOf(answer)) onUpdate?.(next);
        answer = next;
      }
      return answer;
    },

    getRequestUrl,

    async getCardList({ contract, eoa, cursor, chain }) {
      const query = new URLSearchParams({ sca: contract, eoa });
      if (cursor) query.set('cursor', cursor);
      if (chain) query.set('chain', chain);
      const answer = await callService<CardList>(fetcher, `${baseUrl}/v2/a2a/cards?${query}`);
      return answer.ok ? answer.body : answer.error;
    },

    getConnection: () => connection.read(),
    disconnect: () => connection.forget(),
  };
}
