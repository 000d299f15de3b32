import { hexToBytes, type Address, type Hex } from 'viem';
import type { Action } from '../a2a/requests/actions.ts';
import { transactionCall } from '../a2a/approval/commands.ts';
import { formatUnits } from '../a2a/prepare/amounts.ts';
import type { A2aRequestRow } from '../store/schema.ts';

/** What the wallet app shows before the member approves: exactly what approval will do. */
export interface RequestView {
  request_key: string;
  type: string;
  chain: string;
  status: string;
  expiration_time: number;
  bapp: { name: string; callback: { success?: string; fail?: string } | null };
  /** One line for the confirmation screen. */
  summary: string;
  /** The address the BApp asked to act from (only that member may approve), or null for any member. */
  from: string | null;
  /** The BApp pays the fee through a fee-delegation credential. */
  fee_delegated: boolean;
  estimated_gas: number | null;
  transaction?: {
    from: string | null;
    to: string;
    amount?: string;
    contract?: string;
    native_coin?: boolean;
    decimals?: number;
    card_id?: string;
    /** Wei sent with the call, decimal. */
    value: string;
    function?: string | null;
    params?: unknown[] | null;
    /** execute_contract given as abi + params: the ABI items, which decode `data` for the member. */
    abi?: unknown[];
    /** The calldata that will be signed. */
    data: string;
  };
  message?: { from: string | null; value: string; is_hex_encoded: boolean; text: string | null };
  typed_data?: unknown;
}

/** The view of a request for the member `viewer` (the calldata of a card transfer names its sender). */
export function describeRequest(row: A2aRequestRow, action: Action, viewer: Address): RequestView {
  const base: RequestView = {
    request_key: row.request_key,
    type: row.type,
    chain: row.chain,
    status: row.status,
    expiration_time: Number(row.expiration_time),
    bapp: { name: row.bapp_name, callback: row.bapp_callback ? JSON.parse(row.bapp_callback) : null },
    summary: '',
    from: 'from' in action ? action.from : null,
    fee_delegated: row.fee_credential_id !== null,
    estimated_gas: row.estimated_gas === null ? null : Number(row.estimated_gas),
  };
  switch (action.type) {
    case 'auth':
      return { ...base, summary: `${row.bapp_name} asks for your wallet addresses` };
    case 'send_coin':
      return {
        ...base,
        summary: `Send ${action.amount} coin to ${action.to} on ${row.chain}`,
        transaction: { from: action.from, to: action.to, amount: action.amount, value: action.call.value, data: action.call.data },
      };
    case 'send_token':
      return {
        ...base,
        summary: action.native
          ? `Send ${action.amount} coin to ${action.to} on ${row.chain}`
          : `Send ${action.amount} tokens of ${action.contract} to ${action.to} on ${row.chain}`,
        transaction: {
          from: action.from,
          to: action.to,
          amount: action.amount,
          contract: action.contract,
          native_coin: action.native,
          decimals: action.decimals,
          value: action.call.value,
          data: action.call.data,
        },
      };
    case 'send_card':
      return {
        ...base,
        summary: `Send card #${action.card_id} of ${action.contract} to ${action.to} on ${row.chain}`,
        transaction: {
          from: action.from,
          to: action.to,
          contract: action.contract,
          card_id: action.card_id,
          value: '0',
          data: transactionCall(action, viewer).data,
        },
      };
    case 'execute_contract': {
      const value = BigInt(action.value);
      const what = action.function ?? `encoded call ${action.call.data.slice(0, 10)}`;
      return {
        ...base,
        summary: `Call ${what} on ${action.to}${value > 0n ? ` sending ${formatUnits(value, 18)} coin` : ''} on ${row.chain}`,
        transaction: {
          from: action.from,
          to: action.to,
          value: action.value,
          function: action.function,
          params: action.params,
          ...(action.function !== null ? { abi: action.abi } : {}),
          data: action.call.data,
        },
      };
    }
    case 'sign_message':
    case 'sign_message_eip191': {
      const text = action.is_hex_encoded ? printableText(action.value as Hex) : action.value;
      return {
        ...base,
        summary: `Sign the message ${text === null ? action.value : JSON.stringify(text)}`,
        message: { from: action.from, value: action.value, is_hex_encoded: action.is_hex_encoded, text },
      };
    }
    case 'sign_typedData_v4': {
      const domain = action.typed_data.domain as { name?: unknown };
      return {
        ...base,
        summary: `Sign ${action.typed_data.primaryType} typed data${typeof domain.name === 'string' ? ` for ${domain.name}` : ''}`,
        typed_data: action.typed_data,
      };
    }
  }
}

/** The UTF-8 text of hex bytes when it is printable, else null. */
function printableText(value: Hex): string | null {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(hexToBytes(value));
    return /^[\P{Cc}\n\r\t]*$/u.test(text) ? text : null;
  } catch {
    return null;
  }
}
