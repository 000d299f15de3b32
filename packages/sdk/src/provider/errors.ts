import type { A2aError } from '../types.ts';

/** The error codes of EIP-1193 (provider) and EIP-1474 (JSON-RPC) this provider answers with. */
export const ProviderErrorCodes = {
  /** EIP-1193: the member canceled in the wallet, or the BApp's dialog was closed. */
  userRejected: 4001,
  /** EIP-1193: no account is connected yet (call `eth_requestAccounts` first), or another account was named. */
  unauthorized: 4100,
  /** EIP-1193: the provider does not support the method. */
  unsupportedMethod: 4200,
  /** EIP-1193: the wallet service cannot be reached. */
  disconnected: 4900,
  /** EIP-1193: the chain asked for cannot be reached. */
  chainDisconnected: 4901,
  /** The chain is not one of the service's (`wallet_switchEthereumChain`, `wallet_addEthereumChain`). */
  unrecognizedChain: 4902,
  /** EIP-1474 */
  invalidParams: -32602,
  internal: -32603,
  transactionRejected: -32003,
  methodNotFound: -32601,
} as const;

/** What `data` carries when the wallet service refused or failed a request: its own code and words. */
export interface ServiceErrorData {
  code: number;
  err: string;
  message?: string;
  request_key?: string;
}

/** The `ProviderRpcError` of EIP-1193: an Error with a numeric `code` and optional `data`. */
export class ProviderRpcError extends Error {
  readonly code: number;
  readonly data?: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'ProviderRpcError';
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}

/** The service's codes a transaction is refused with for reasons of the chain or the member's account. */
const TRANSACTION_REJECTIONS = new Set([6200, 6412, 6414, 6416, 6418, 6500, 6501]);

/**
 * A failure of the service as a provider error: bad input (4xxx of the library, 6401–6411, 6417,
 * 400) is -32602, a transaction the service refuses for the chain's or the account's sake is
 * -32003, anything else -32603. The service's `{ code, err, message }` is in `data`.
 */
export function fromServiceError(error: A2aError & { request_key?: string }): ProviderRpcError {
  const data: ServiceErrorData = { code: error.code, err: error.err };
  if (error.message !== undefined) data.message = error.message;
  if (error.request_key !== undefined) data.request_key = error.request_key;
  const words = error.message && error.message !== error.err ? `${error.err}: ${error.message}` : error.err;
  const invalid = error.code === 400 || error.code === 4072 || error.code === 6417 || (error.code >= 6401 && error.code <= 6411);
  if (invalid) return new ProviderRpcError(ProviderErrorCodes.invalidParams, words, data);
  if (TRANSACTION_REJECTIONS.has(error.code)) return new ProviderRpcError(ProviderErrorCodes.transactionRejected, words, data);
  return new ProviderRpcError(ProviderErrorCodes.internal, words, data);
}

export const userRejected = (data?: unknown) => new ProviderRpcError(ProviderErrorCodes.userRejected, 'User rejected the request.', data);
export const unauthorized = (message = 'No account is connected: call eth_requestAccounts first.') =>
  new ProviderRpcError(ProviderErrorCodes.unauthorized, message);
export const unsupportedMethod = (method: string) =>
  new ProviderRpcError(ProviderErrorCodes.unsupportedMethod, `The provider does not support the method ${method}.`);
export const invalidParams = (message: string, data?: unknown) => new ProviderRpcError(ProviderErrorCodes.invalidParams, message, data);
