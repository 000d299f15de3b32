import type { Address, Hex } from 'viem';

/** Every value of `type` that prepare accepts. */
export const REQUEST_TYPES = [
  'auth',
  'send_coin',
  'send_token',
  'send_card',
  'execute_contract',
  'sign_message',
  'sign_message_eip191',
  'sign_typedData_v4',
] as const;
export type RequestType = (typeof REQUEST_TYPES)[number];

export const TRANSACTION_TYPES = ['send_coin', 'send_token', 'send_card', 'execute_contract'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];
export const MESSAGE_TYPES = ['sign_message', 'sign_message_eip191', 'sign_typedData_v4'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export function isRequestType(value: string): value is RequestType {
  return (REQUEST_TYPES as readonly string[]).includes(value);
}
export function isTransactionType(type: RequestType): type is TransactionType {
  return (TRANSACTION_TYPES as readonly string[]).includes(type);
}
export function isMessageType(type: RequestType): type is MessageType {
  return (MESSAGE_TYPES as readonly string[]).includes(type);
}

/** The transaction a request sends: fixed at prepare, so approval sends exactly what was shown. */
export interface PreparedCall {
  to: Address;
  data: Hex;
  /** Wei, decimal. */
  value: string;
}

interface TransactionBase {
  /** Lower-case; when present, only the member with this address may approve. */
  from: Address | null;
  call: PreparedCall;
}

/**
 * A validated request: what approval executes, stored as JSON. A tagged union on `type`; code
 * that handles actions switches on it exhaustively.
 */
export type Action =
  | { type: 'auth' }
  | (TransactionBase & { type: 'send_coin'; to: Address; amount: string })
  | (TransactionBase & {
      type: 'send_token';
      to: Address;
      /** Whole tokens as given. */
      amount: string;
      /** The all-zero address selects the native coin. */
      contract: Address;
      native: boolean;
      decimals: number;
      /** Smallest units, decimal. */
      units: string;
    })
  | (TransactionBase & { type: 'send_card'; to: Address; contract: Address; card_id: string })
  | (TransactionBase & {
      type: 'execute_contract';
      to: Address;
      /** Wei, decimal. */
      value: string;
      /** `name(type name, …)` when the call came as abi + params; null for encoded_function_call. */
      function: string | null;
      /** The arguments as given (JSON), when the call came as abi + params. */
      params: unknown[] | null;
      /** JSON ABI items used to decode revert data (the function and any error items given). */
      abi: unknown[];
    })
  | { type: 'sign_message' | 'sign_message_eip191'; from: Address | null; value: string; is_hex_encoded: boolean }
  | { type: 'sign_typedData_v4'; from: Address | null; typed_data: TypedDataInput };

export type TransactionAction = Extract<Action, { call: PreparedCall }>;

/** EIP-712 typed data as a BApp sends it (eth_signTypedData_v4 JSON). */
export interface TypedDataInput {
  types: Record<string, Array<{ name: string; type: string }>>;
  primaryType: string;
  domain: Record<string, unknown>;
  message: Record<string, unknown>;
}

export function isTransactionAction(action: Action): action is TransactionAction {
  return 'call' in action;
}

