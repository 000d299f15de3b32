/**
 * scrypt's work factor N for new password hashes and PIN keys (config `custody.scryptCost`). Each
 * hash and PIN key keeps the N it was made with, so a changed setting applies to what is made
 * after it and everything made before still opens.
 */
export const DEFAULT_SCRYPT_COST = 2 ** 15;
/** 2^10 is for test installations: a PIN guess costs 1/32 of the default's work. */
export const MIN_SCRYPT_COST = 2 ** 10;
export const MAX_SCRYPT_COST = 2 ** 20;

export function isScryptCost(value: number): boolean {
  return Number.isInteger(value) && value >= MIN_SCRYPT_COST && value <= MAX_SCRYPT_COST && (value & (value - 1)) === 0;
}

/** Throws for a cost isScryptCost refuses (a caller's mistake, not a setting: config checks those). */
export function assertScryptCost(value: number): void {
  if (!isScryptCost(value)) throw new Error(`scrypt cost ${value} is not a power of two from 2^10 to 2^20`);
}
