import { concat, hashMessage, hashTypedData, hexToBytes, keccak256, stringToBytes, type Hex, type LocalAccount } from 'viem';
import type { Action, TypedDataInput } from './actions.ts';

export interface MessageSignature {
  /** 65 bytes r | s | v, v being 27 or 28. */
  signature: Hex;
  /** The digest that was signed. */
  hash: Hex;
}

/** The bytes a sign_message or sign_message_eip191 request signs: UTF-8 text, or the hex bytes. */
export function messageBytes(value: string, isHexEncoded: boolean): Uint8Array {
  return isHexEncoded ? hexToBytes(value as Hex) : stringToBytes(value);
}

/**
 * sign_message digest: keccak256(prefix + decimal byte length + message), the prefix being the
 * chain's configured signed-message prefix.
 *
 * @example prefixedMessageHash('\x19Main Signed Message:\n', stringToBytes('hi'))
 */
export function prefixedMessageHash(prefix: string, message: Uint8Array): Hex {
  return keccak256(concat([stringToBytes(prefix), stringToBytes(String(message.length)), message]));
}

/** Signs a message request with the member's account. */
export async function signMessageAction(
  account: LocalAccount,
  action: Extract<Action, { type: 'sign_message' | 'sign_message_eip191' | 'sign_typedData_v4' }>,
  messagePrefix: string,
): Promise<MessageSignature> {
  switch (action.type) {
    case 'sign_message': {
      const hash = prefixedMessageHash(messagePrefix, messageBytes(action.value, action.is_hex_encoded));
      return { signature: await account.sign!({ hash }), hash };
    }
    case 'sign_message_eip191': {
      const message = action.is_hex_encoded ? { raw: action.value as Hex } : action.value;
      return { signature: await account.signMessage({ message }), hash: hashMessage(message) };
    }
    case 'sign_typedData_v4': {
      const typed = action.typed_data as TypedDataInput;
      return { signature: await account.signTypedData(typed as never), hash: hashTypedData(typed as never) };
    }
  }
}
