import { maxUint256 } from 'viem';
import { AppError } from '../../errors/app-error.ts';
import { Errors } from '../../errors/codes.ts';

/** Digits a uint256 has at most, with room for as many decimals as a token may declare (uint8). */
const MAX_AMOUNT_LENGTH = 78 + 1 + 255;

/**
 * Converts a decimal amount string ("1.5") into smallest units for `decimals` places. Refuses
 * (6404) anything that is not a plain decimal string, a negative or zero amount, more fraction
 * digits than the unit has, and an amount whose smallest units do not fit in a uint256.
 *
 * @example parseAmount('1.5', 18) // 1_500_000_000_000_000_000n
 */
export function parseAmount(value: unknown, decimals: number, field = 'amount'): bigint {
  if (typeof value !== 'string') throw new AppError(Errors.InvalidAmount, { detail: `${field} must be a decimal string` });
  const text = value.trim();
  if (text.length > MAX_AMOUNT_LENGTH) throw new AppError(Errors.InvalidAmount, { detail: `${field} is too large for a transfer` });
  if (/^-/.test(text)) throw new AppError(Errors.InvalidAmount, { detail: `${field} must not be negative` });
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new AppError(Errors.InvalidAmount, { detail: `${field} "${value}" is not a decimal number` });
  const whole = match[1]!;
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) {
    throw new AppError(Errors.InvalidAmount, { detail: `${field} has ${fraction.length} decimals; at most ${decimals} are allowed` });
  }
  const units = BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
  if (units === 0n) throw new AppError(Errors.InvalidAmount, { detail: `${field} must be greater than zero` });
  if (units > maxUint256) throw new AppError(Errors.InvalidAmount, { detail: `${field} is too large for a transfer (more than 2^256 - 1 smallest units)` });
  return units;
}

/** Formats smallest units as a decimal amount without trailing zeros. */
export function formatUnits(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}
