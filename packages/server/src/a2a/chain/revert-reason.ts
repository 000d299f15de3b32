import { decodeErrorResult, hexToString, isHex, type Abi, type Hex } from 'viem';
import { knownErrorAbi } from './token-contracts.ts';

const ERROR_STRING_SELECTOR = '0x08c379a0';
const PANIC_SELECTOR = '0x4e487b71';
const PANIC_REASONS: Record<number, string> = {
  0x01: 'assertion failed',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'invalid enum value',
  0x22: 'invalid storage byte array',
  0x31: 'pop on an empty array',
  0x32: 'array index out of bounds',
  0x41: 'out of memory',
  0x51: 'call to an invalid internal function',
};

/**
 * The revert reason carried by a failed eth_call or eth_estimateGas, as a message for 6414: a
 * `require` reason string verbatim; `Name(arg, …)` for a custom error known from `abi` or the token
 * standards; `panic 0x11: …` for a panic; `custom error 0x…` otherwise. Undefined when the error
 * is not a revert (a node that does not answer, missing funds, …).
 */
export function revertReasonOf(error: unknown, abi: readonly unknown[] = []): string | undefined {
  const data = revertDataOf(error);
  if (data !== undefined && data !== '0x') return describeRevertData(data, abi);
  const text = errorText(error);
  const match = /execution reverted(?::\s*([^\n]*))?/i.exec(text);
  if (!match) return undefined;
  return match[1]?.trim() || 'execution reverted';
}

export function describeRevertData(data: Hex, abi: readonly unknown[] = []): string {
  const selector = data.slice(0, 10).toLowerCase();
  if (selector === ERROR_STRING_SELECTOR) {
    try {
      const decoded = decodeErrorResult({ abi: [], data });
      return String(decoded.args?.[0] ?? '');
    } catch {
      return hexToString(`0x${data.slice(10)}`);
    }
  }
  if (selector === PANIC_SELECTOR) {
    const code = Number(BigInt(`0x${data.slice(10)}`));
    return `panic 0x${code.toString(16).padStart(2, '0')}: ${PANIC_REASONS[code] ?? 'unknown panic'}`;
  }
  const errors = [...abi, ...knownErrorAbi].filter(
    (item) => typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'error',
  ) as Abi;
  try {
    const decoded = decodeErrorResult({ abi: errors, data });
    return `${decoded.errorName}(${(decoded.args ?? []).map((arg) => String(arg)).join(', ')})`;
  } catch {
    return `custom error ${selector}`;
  }
}

function revertDataOf(error: unknown): Hex | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 10; depth++) {
    const data = (current as { data?: unknown }).data;
    if (typeof data === 'string' && isHex(data)) return data;
    if (typeof data === 'object' && data !== null && typeof (data as { data?: unknown }).data === 'string') {
      return (data as { data: Hex }).data;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function errorText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 10; depth++) {
    const value = current as { details?: string; message?: string };
    if (value.details) parts.push(value.details);
    if (value.message) parts.push(value.message);
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join('\n');
}

/** Whether a node error says the sender cannot pay for value and gas. */
export function isInsufficientFunds(error: unknown): boolean {
  return /insufficient funds|exceeds the balance/i.test(errorText(error));
}
