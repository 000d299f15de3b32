import { concat, hashMessage, hashTypedData, hexToBytes, keccak256, stringToBytes, type Hex, type LocalAccount } from 'viem';
import { AppError } from '../../errors/app-error.ts';
import type { Action, TypedDataInput } from '../requests/actions.ts';
import { Errors } from '../../errors/codes.ts';

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

/**
 * Bounds on the typed data of sign_typedData_v4, checked before it is hashed. EIP-712 hashing walks
 * a struct's type dependencies again for every struct value, so its cost grows with struct values
 * times types: without bounds, one unauthenticated prepare of a long chain of types kept the
 * process busy for seconds. `structWork` bounds that product (about 30 ms of hashing here); real
 * requests (permits, orders, bulk listings) use a handful of types and stay far below every bound.
 */
export const TYPED_DATA_LIMITS = { types: 32, fieldsPerType: 64, typeNameLength: 256, values: 4_096, structWork: 16_384 } as const;

/** Refuses (6409) typed data past TYPED_DATA_LIMITS. Walks the values without recursion. */
export function assertTypedDataWithinLimits(typed: { types: Record<string, unknown>; domain: unknown; message: unknown }): void {
  const tooLarge = (what: string) => new AppError(Errors.InvalidValue, { detail: `the typed data is too large: ${what}` });
  const typeNames = Object.keys(typed.types);
  if (typeNames.length > TYPED_DATA_LIMITS.types) throw tooLarge(`more than ${TYPED_DATA_LIMITS.types} types`);
  for (const name of typeNames) {
    const fields = typed.types[name];
    if (name.length > TYPED_DATA_LIMITS.typeNameLength) throw tooLarge(`a type name is longer than ${TYPED_DATA_LIMITS.typeNameLength} characters`);
    if (!Array.isArray(fields)) continue;
    if (fields.length > TYPED_DATA_LIMITS.fieldsPerType) throw tooLarge(`type ${name} has more than ${TYPED_DATA_LIMITS.fieldsPerType} fields`);
    for (const field of fields) {
      const fieldType = (field as { type?: unknown } | null)?.type;
      if (typeof fieldType === 'string' && fieldType.length > TYPED_DATA_LIMITS.typeNameLength) {
        throw tooLarge(`a field type of ${name} is longer than ${TYPED_DATA_LIMITS.typeNameLength} characters`);
      }
    }
  }
  let values = 0;
  let structs = 0;
  const pending: unknown[] = [typed.domain, typed.message];
  while (pending.length > 0) {
    const value = pending.pop();
    values += 1;
    if (values > TYPED_DATA_LIMITS.values) throw tooLarge(`more than ${TYPED_DATA_LIMITS.values} values in domain and message`);
    if (typeof value !== 'object' || value === null) continue;
    if (!Array.isArray(value)) structs += 1;
    for (const inner of Object.values(value)) pending.push(inner);
  }
  if (structs * typeNames.length > TYPED_DATA_LIMITS.structWork) {
    throw tooLarge(`${structs} structs of ${typeNames.length} types (structs times types may be at most ${TYPED_DATA_LIMITS.structWork})`);
  }
}
