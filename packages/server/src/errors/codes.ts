/**
 * The registry of stable error codes. Each code has its HTTP status and message; the table in
 * docs/errors.md is this registry, and a test checks the two agree.
 */
export interface ErrorCodeEntry {
  http: number;
  message: string;
}

export const errorCodes = {
  // Shared
  400: { http: 400, message: 'bad request' },
  404: { http: 404, message: 'not Found' },
  500: { http: 500, message: 'internal server error' },
  501: { http: 500, message: 'fail to send messenger message' },
  503: { http: 503, message: 'service unavailable' },
  429: { http: 429, message: 'too many requests' },

  // Family A: accounts and sign-in
  410: { http: 400, message: 'invalid birth for account creation' },
  411: { http: 400, message: 'teenagers under the age of 19 are not allowed to sign up' },
  412: { http: 400, message: 'already existing account (wallet)' },
  413: { http: 400, message: 'already existing email' },
  414: { http: 400, message: 'already existing account without wallet' },
  403: { http: 400, message: 'exceed pin code error count' },
  420: { http: 401, message: 'inactive accounts require new pin code settings' },
  421: { http: 401, message: 'banned accounts cannot login' },
  422: { http: 401, message: 'suspended accounts cannot login' },
  423: { http: 401, message: 'the account has been unsubscribed' },
  424: { http: 401, message: 'undefined status' },
  425: { http: 401, message: 'not yet approved' },
  402: { http: 401, message: 'invalid session' },
  406: { http: 401, message: 'not found user info in db' },
  4001: { http: 401, message: 'invalid access token' },
  4002: { http: 401, message: 'the expired token' },
  4003: { http: 401, message: 'fail to get authorization in header' },
  4004: { http: 401, message: 'invalid password' },
  4005: { http: 401, message: 'account does not have a contract address' },
  4006: { http: 401, message: 'invalid pin code' },
  4007: { http: 400, message: 'not allow the same code as before' },
  4044: { http: 401, message: 'access token does not exist' },
  4008: { http: 429, message: 'too many wrong passwords, try again later' },
  440: { http: 401, message: 'content is not active' },

  // Family A: the messenger's identity checks. The specification lists them; this service has no
  // messenger sign-up or identity check, so it never answers them (docs/errors.md).
  405: { http: 401, message: 'attempted access from non-messenger app' },
  430: { http: 400, message: 'duplicated ci for account creation' },
  431: { http: 400, message: 'inconsistency with previous ci' },
  432: { http: 400, message: 'fail to check messenger ci' },
  433: { http: 400, message: 'fail to check messenger legal name' },
  434: { http: 400, message: 'fail to check messenger phone number' },
  435: { http: 400, message: 'messenger ci is empty' },
  5002: { http: 500, message: 'fail to call messenger unlink' },
  5003: { http: 500, message: 'messenger server error' },

  // Family A: limits
  4070: { http: 400, message: 'send token count daily limit exceeded' },
  4071: { http: 400, message: 'send token amount onetime limit exceeded' },
  4072: { http: 400, message: 'send token amount decimal places exceeded' },
  4080: { http: 400, message: 'mint count monthly limit exceeded' },
  4100: { http: 400, message: 'upload animation file limit exceeded' },
  4101: { http: 400, message: 'upload animation file extension is not support' },
  4111: { http: 400, message: 'receiver is already an user of the wallet' },
  4112: { http: 400, message: 'sender daily limit exceeded' },
  4113: { http: 400, message: 'sender already sent invite message to receiver' },
  4114: { http: 400, message: 'receiver daily limit exceeded' },
  4115: { http: 400, message: 'receiver monthly limit exceeded' },
  4201: { http: 400, message: 'card is not held by the partner' },
  4202: { http: 400, message: 'insufficient funds for the transaction fee' },
  4203: { http: 400, message: 'escrow is not approved for the contract' },
  4204: { http: 400, message: 'card is not in escrow' },
  4205: { http: 400, message: 'card was already claimed' },
  4206: { http: 404, message: 'claim link is not valid' },
  4700: { http: 400, message: 'no transaction receipt' },

  // Family B
  6000: { http: 400, message: 'request key does not exist' },
  6001: { http: 400, message: 'request key is expired' },
  6010: { http: 400, message: 'invalid request type' },
  6011: { http: 400, message: 'invalid request status' },
  6200: { http: 400, message: 'execute contract count daily limit exceeded' },
  6401: { http: 400, message: 'bapp name is required' },
  6402: { http: 400, message: 'invalid transaction' },
  6403: { http: 400, message: 'invalid to address' },
  6404: { http: 400, message: 'invalid amount' },
  6405: { http: 400, message: 'invalid contract' },
  6406: { http: 400, message: 'invalid card id' },
  6407: { http: 400, message: 'invalid abi' },
  6408: { http: 400, message: 'invalid params' },
  6409: { http: 400, message: 'invalid value' },
  6410: { http: 400, message: 'unknown request type' },
  6411: { http: 400, message: 'invalid from address' },
  6412: { http: 400, message: 'insufficient funds' },
  6414: { http: 400, message: 'transaction reverted' },
  6416: { http: 400, message: 'the fee-delegation credential cannot be used with this request' },
  6417: { http: 400, message: 'the request is not supported with this chain' },
  6418: { http: 400, message: 'invalid fee-delegation credential' },
  6500: { http: 400, message: 'address is on the blacklist' },
  6501: { http: 400, message: 'invalid user status' },
} as const satisfies Record<number, ErrorCodeEntry>;

export type ErrorCode = keyof typeof errorCodes;
