/**
 * Client library of the wallet service's App2App API (Family B): prepare a request, send the member
 * to the wallet (link or QR code), read the result. Works in browsers and in Node.js (global fetch).
 *
 * Use `createClient(options)` for a client of one service, or the functions below, which use the
 * client set with `configure(options)` (in a browser page, without it: the page's origin).
 */
import { createClient, type A2aClient, type PrepareFunctions } from './client.ts';
import type { ClientOptions } from './types.ts';

export { createClient, isError, MAX_WAIT_SECONDS } from './client.ts';
export type { A2aClient, CardListParams, PrepareFunctions, WaitOptions } from './client.ts';
export { DEFAULT_STORAGE_KEY, memoryStorage } from './connection.ts';
export { detectEnvironment } from './links.ts';
export { AMOUNT_DECIMALS_CODE, checkAmountDecimals, MAX_AMOUNT_DECIMALS } from './prepare.ts';
export type {
  AuthParams,
  BappParams,
  ExecuteContractParams,
  SendCardParams,
  SendCoinParams,
  SendTokenParams,
  SignMessageParams,
  SignTypedDataParams,
} from './prepare.ts';
export type * from './types.ts';

let current: A2aClient | undefined;

/** Sets the client the top-level functions use, and returns it. */
export function configure(options: ClientOptions): A2aClient {
  current = createClient(options);
  return current;
}

function client(): A2aClient {
  current ??= createClient();
  return current;
}

const PREPARE_NAMES = [
  'auth',
  'sendCoin',
  'sendToken',
  'sendCard',
  'executeContract',
  'signMessage',
  'signMessageEip191',
  'signTypedData',
] as const satisfies ReadonlyArray<keyof PrepareFunctions>;

/** `prepare.auth(…)`, `prepare.sendCoin(…)`, …: see `A2aClient.prepare`. */
export const prepare = Object.fromEntries(
  PREPARE_NAMES.map((name) => [name, (params: never) => (client().prepare[name] as (params: never) => unknown)(params)]),
) as unknown as PrepareFunctions;

export const request: A2aClient['request'] = (requestKey, onUnsupportedEnvironment) => client().request(requestKey, onUnsupportedEnvironment);
export const getResult: A2aClient['getResult'] = (requestKey) => client().getResult(requestKey);
export const waitForResult: A2aClient['waitForResult'] = (requestKey, options) => client().waitForResult(requestKey, options);
export const getRequestUrl: A2aClient['getRequestUrl'] = (requestKey) => client().getRequestUrl(requestKey);
export const getCardList: A2aClient['getCardList'] = (params) => client().getCardList(params);
export const getConnection: A2aClient['getConnection'] = () => client().getConnection();
export const disconnect: A2aClient['disconnect'] = () => client().disconnect();
