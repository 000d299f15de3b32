import type { A2aError, ChainName, RequestType } from './types.ts';

/** Most decimals an amount may have in the library (the specification's client limit). */
export const MAX_AMOUNT_DECIMALS = 6;
/** The code of an amount refused by the library: "send token amount decimal places exceeded". */
export const AMOUNT_DECIMALS_CODE = 4072;

/** Shared by every prepare function: the BApp's name and the links the wallet offers afterwards. */
export interface BappParams {
  /** Shown to the member in the wallet. */
  bappName: string;
  /** Offered by the wallet after approval. */
  successLink?: string;
  /** Offered by the wallet after a cancel or a failure. */
  failLink?: string;
}

export interface AuthParams extends BappParams {
  /** A service key issued by the operator: the result then carries `ci_hash`. */
  serviceKey?: string;
}

interface ChainParams extends BappParams {
  /** `main` by default. */
  chain?: ChainName;
  /** Only the member with this address may approve. */
  from?: string;
}

interface TransactionParams extends ChainParams {
  /** A fee-delegation credential (`fd_…`): the service's fee payer pays the fee. */
  kasAuthorizationKey?: string;
}

export interface SendCoinParams extends TransactionParams {
  to: string;
  /** Coins as a decimal string (`"1.5"`), at most 6 decimals. */
  amount: string;
}

export interface SendTokenParams extends TransactionParams {
  to: string;
  /** Whole tokens as a decimal string, at most 6 decimals. */
  amount: string;
  /** The ERC-20 contract; the all-zero address means the native coin. */
  contract: string;
}

export interface SendCardParams extends TransactionParams {
  to: string;
  /** The card id. */
  id: string | number | bigint;
  /** The ERC-721 contract. */
  contract: string;
}

export interface ExecuteContractParams extends TransactionParams {
  /** The contract called. */
  to: string;
  /** Coins sent with the call in the smallest unit (wei); `"0"` by default. */
  value?: string | number | bigint;
  /** One function ABI item (object, array of one, or JSON text); with `params`. */
  abi?: unknown;
  /** The arguments (array or JSON text). */
  params?: unknown;
  /** 0x calldata, instead of `abi` and `params`. */
  encodedFunctionCall?: string;
}

export interface SignMessageParams extends ChainParams {
  /** The message: text, or 0x hex bytes with `isHexEncoded`. */
  value: string;
  isHexEncoded?: boolean;
}

export interface SignTypedDataParams extends ChainParams {
  /** EIP-712 typed data `{ types, primaryType, domain, message }`, as an object or JSON text. */
  value: object | string;
}

/** The body of `POST /v2/a2a/prepare`, or the library's refusal of an amount. */
export type PrepareBody = { body: Record<string, unknown> } | { refused: A2aError };

/** Refuses an amount with more than six digits after the decimal point (code 4072). */
export function checkAmountDecimals(amount: unknown): A2aError | null {
  const text = typeof amount === 'number' || typeof amount === 'bigint' ? String(amount) : amount;
  if (typeof text !== 'string') return null;
  const decimals = /\.(\d+)/.exec(text)?.[1]?.length ?? 0;
  if (decimals <= MAX_AMOUNT_DECIMALS) return null;
  return {
    err: 'send token amount decimal places exceeded',
    code: AMOUNT_DECIMALS_CODE,
    message: `amount ${text} has ${decimals} decimals; at most ${MAX_AMOUNT_DECIMALS} are allowed`,
  };
}

function bapp(params: BappParams, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const callback =
    params.successLink || params.failLink
      ? { callback: { ...(params.successLink ? { success: params.successLink } : {}), ...(params.failLink ? { fail: params.failLink } : {}) } }
      : {};
  return { name: params.bappName, ...callback, ...extra };
}

/** Drops undefined fields so the body carries only what was given. */
function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function asString(value: string | number | bigint | undefined): string | undefined {
  return typeof value === 'number' || typeof value === 'bigint' ? value.toString() : value;
}

function transactionBody(type: RequestType, params: TransactionParams, transaction: Record<string, unknown>): Record<string, unknown> {
  return defined({
    type,
    chain: params.chain,
    bapp: bapp(params, params.kasAuthorizationKey ? { kas_authorization_key: params.kasAuthorizationKey } : {}),
    transaction: defined({ ...transaction, from: params.from }),
  });
}

function messageBody(type: RequestType, params: ChainParams, message: Record<string, unknown>): Record<string, unknown> {
  return defined({ type, chain: params.chain, bapp: bapp(params), message: defined({ ...message, from: params.from }) });
}

function withAmount(params: { amount: string }, build: () => Record<string, unknown>): PrepareBody {
  const refused = checkAmountDecimals(params.amount);
  return refused ? { refused } : { body: build() };
}

/** Builds each type's prepare body from the library's parameters. */
export const prepareBodies = {
  auth: (params: AuthParams): PrepareBody => ({
    body: { type: 'auth', bapp: bapp(params, params.serviceKey ? { service_key: params.serviceKey } : {}) },
  }),
  send_coin: (params: SendCoinParams): PrepareBody =>
    withAmount(params, () => transactionBody('send_coin', params, { to: params.to, amount: params.amount })),
  send_token: (params: SendTokenParams): PrepareBody =>
    withAmount(params, () =>
      transactionBody('send_token', params, { contract: params.contract, to: params.to, amount: params.amount }),
    ),
  send_card: (params: SendCardParams): PrepareBody => ({
    body: transactionBody('send_card', params, { contract: params.contract, to: params.to, card_id: asString(params.id) }),
  }),
  execute_contract: (params: ExecuteContractParams): PrepareBody => ({
    body: transactionBody('execute_contract', params, {
      to: params.to,
      value: asString(params.value),
      abi: params.abi,
      params: params.params,
      encoded_function_call: params.encodedFunctionCall,
    }),
  }),
  sign_message: (params: SignMessageParams): PrepareBody => ({
    body: messageBody('sign_message', params, { value: params.value, is_hex_encoded: params.isHexEncoded }),
  }),
  sign_message_eip191: (params: SignMessageParams): PrepareBody => ({
    body: messageBody('sign_message_eip191', params, { value: params.value, is_hex_encoded: params.isHexEncoded }),
  }),
  sign_typedData_v4: (params: SignTypedDataParams): PrepareBody => ({
    body: messageBody('sign_typedData_v4', params, { value: params.value }),
  }),
} satisfies Record<RequestType, (params: never) => PrepareBody>;
