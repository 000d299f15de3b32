/** A usage mistake (a missing or malformed option): the CLI prints the message and exits 1. */
export class UsageError extends Error {}

type OptionValues = { [name: string]: string | boolean | undefined };

/** The text of a required option. */
export function required(values: OptionValues, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`missing --${name}`);
  return value;
}

/** A PIN given in clear: six digits, as every PIN of the service is (the CLI sends its SHA-256 hex). */
export function sixDigitPin(values: OptionValues, name = 'pin'): string {
  const pin = required(values, name);
  if (!/^\d{6}$/.test(pin)) throw new UsageError(`--${name} must be 6 digits`);
  return pin;
}

/** A whole number from 0 to `max`. */
export function wholeNumber(value: string, name: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  const number = Number(value);
  if (number > max) throw new UsageError(`--${name} must be at most ${max.toLocaleString('en-US')}`);
  return number;
}

/** --limit of a listing: 100 by default, 1 to 1,000. */
export function pageLimit(values: OptionValues): number {
  return typeof values.limit === 'string' ? Math.max(1, wholeNumber(values.limit, 'limit', 1000)) : 100;
}
