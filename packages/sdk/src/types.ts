import type { WireCardList } from './wire.ts';

type WireCard = WireCardList['cards'][number];

/** The request types of `POST /v2/a2a/prepare`. */
export type RequestType =
  | 'auth'
  | 'send_coin'
  | 'send_token'
  | 'send_card'
  | 'execute_contract'
  | 'sign_message'
  | 'sign_message_eip191'
  | 'sign_typedData_v4';

/** `default` talks to `{a2a_url}` and uses its links; `global` to `{a2a_url_global}` and the regional links. */
export type Region = 'default' | 'global';

/** `main` (default), `ethereum` or `polygon`, or another chain the service configures. */
export type ChainName = 'main' | 'ethereum' | 'polygon' | (string & {});

/**
 * Every failure the library resolves to: the service's `{ code, err }` (the REST codes), with the
 * detail in `message` when the service gave one (the revert reason of 6414, the argument of 6408, …).
 */
export interface A2aError {
  err: string;
  code: number;
  message?: string;
  /** `error` when the failure is a request's state (see `RequestErrorState`); absent otherwise. */
  status?: 'error';
}

/** A request that ended in error (refused by a policy, failed when executed, or expired: 6001). */
export interface RequestErrorState extends A2aError {
  request_key: string;
  expiration_time: number;
  status: 'error';
  message: string;
  /** The service's `error` object as sent. */
  error: { code: number; err: string; message: string };
}

declare const requestTypeTag: unique symbol;

/**
 * A request key. Keys returned by `prepare.*` carry their request type for the compiler, so
 * `getResult` and `waitForResult` know the shape of `result`; any string is accepted too.
 */
export type RequestKey<T extends RequestType = RequestType> = string & { readonly [requestTypeTag]?: T };

/** What `prepare.*` resolves to on success. */
export interface Prepared<T extends RequestType = RequestType> {
  request_key: RequestKey<T>;
  /** The request type (added by the library; the service does not echo it). */
  type: T;
  status: 'prepared';
  /** Epoch seconds: the member must decide before then. */
  expiration_time: number;
  /** Gas limit the transaction would be sent with now (transaction types prepared with `from`). */
  estimated_gas?: number;
}

/** `result` of a completed `auth`: the member's addresses. */
export interface AuthResult {
  main_address: string;
  evm_address?: string;
  bitcoin_address?: string;
  solana_address?: string;
  tron_address?: string;
  xrpl_address?: string;
}

/** `result` of a completed transaction request; `status` follows the receipt. */
export interface TransactionResult {
  tx_hash: string;
  status: 'pending' | 'success' | 'fail';
}

/** `result` of a completed signature request. */
export interface SignatureResult {
  /** 65 bytes, `v` 27 or 28. */
  signature: string;
  /** The digest that was signed. */
  hash: string;
}

export interface ResultByType {
  auth: AuthResult;
  send_coin: TransactionResult;
  send_token: TransactionResult;
  send_card: TransactionResult;
  execute_contract: TransactionResult;
  sign_message: SignatureResult;
  sign_message_eip191: SignatureResult;
  sign_typedData_v4: SignatureResult;
}

interface StateBase {
  request_key: string;
  expiration_time: number;
}

export interface PendingState extends StateBase {
  status: 'prepared' | 'requested';
}

export interface CompletedState<T extends RequestType = RequestType> extends StateBase {
  status: 'completed';
  result: ResultByType[T];
  /** With `auth` prepared with a `serviceKey`: the member's identity hash for this service key. */
  ci_hash?: string;
}

export interface CanceledState extends StateBase {
  status: 'canceled';
}

/** What `getResult` and `waitForResult` resolve to. */
export type ResultAnswer<T extends RequestType = RequestType> =
  | PendingState
  | CompletedState<T>
  | CanceledState
  | RequestErrorState
  | A2aError;

/** One card of `getCardList`: B4's card as the service's document has it. */
export interface Card extends WireCard {}

/** A page of `getCardList` (100 cards at most); `next_cursor` is `""` on the last page. */
export interface CardList extends Omit<WireCardList, 'cards'> {
  cards: Card[];
}

/** Every link form of a request, and the QR images of `url`. */
export interface RequestLinks {
  request_key: string;
  /** The link a QR code encodes: the universal link. */
  url: string;
  universal_link: string;
  /** Older iOS form: `{app_scheme}://{app_host}/open?url=<universal link>`. */
  ios_scheme_link: string;
  /** Older Android form: `intent://{app_host}/open?url=<universal link>#Intent;…;end`. */
  android_intent_link: string;
  /** The service's QR code of `url` (PNG and SVG), at the client's base URL. */
  qr_png_url: string;
  qr_svg_url: string;
}

/** Where `request` found itself: a phone opens the wallet app, anything else is `other`. */
export type Environment = 'ios' | 'android' | 'other';

/** What `request` resolves to when it did not fail. */
export interface RequestOutcome {
  request_key: string;
  environment: Environment;
  /** True when the wallet link was opened (iOS, Android). */
  opened: boolean;
  /** The link that was opened. */
  url?: string;
}

/** The addresses the library keeps after a completed `auth`, until `disconnect()`. */
export interface Connection extends AuthResult {
  /** Epoch seconds of the auth result that stored it. */
  connected_at: number;
}

/** Where the connection is kept: `localStorage` in browsers, or anything with these three methods. */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** Link settings for building links without asking the service (as its `a2a.links` configuration). */
export interface LinkSettings {
  /** The wallet's web host, e.g. `https://wallet.example.com`. */
  webUrl: string;
  /** `walletapp` by default (`walletapp-global` in the `global` region). */
  appScheme?: string;
  /** `wallet` by default. */
  appHost?: string;
  /** `com.example.wallet` by default (`com.example.wallet.global` in the `global` region). */
  appPackage?: string;
}

export interface ClientOptions {
  /** `{a2a_url}`: the service's address, e.g. `https://wallet.example.com`. In a browser the page's origin by default. */
  baseUrl?: string;
  /** `{a2a_url_global}`: used instead of `baseUrl` in the `global` region (`baseUrl` when not given). */
  globalBaseUrl?: string;
  /** `default` (the default) or `global`. */
  region?: Region;
  /** A fetch implementation; the global `fetch` by default. */
  fetch?: typeof fetch;
  /**
   * Where the connected addresses are kept: `localStorage` in a browser, memory elsewhere; `null`
   * keeps nothing.
   */
  storage?: KeyValueStorage | null;
  /** The storage key of the connection; `wallet-a2a.connection` by default. */
  storageKey?: string;
  /** Build links locally with these settings instead of asking the service (`GET /v2/a2a/links`). */
  links?: LinkSettings;
  /** On iOS and Android open the older scheme link (`ios_scheme_link`, `android_intent_link`) instead of the universal link. */
  schemeLinks?: boolean;
  /** Overrides the environment detection (from `navigator.userAgent`). */
  environment?: Environment;
  /** Opens a link on iOS and Android; `location.assign(url)` by default. */
  openUrl?: (url: string) => void;
}
