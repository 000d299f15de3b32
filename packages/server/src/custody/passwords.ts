import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { assertScryptCost, DEFAULT_SCRYPT_COST } from '../config/scrypt-cost.ts';

const SCRYPT_R = 8;
const SCRYPT_P = 1;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
/** Upper bound on the parameters accepted from a stored hash, so a corrupted row cannot exhaust memory. */
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;

/**
 * The SHA-256 hex of a text: what clients and the CLI send in place of a password or PIN.
 */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Hashes a password (as sent: SHA-256 hex) into `scrypt$N$r$p$saltB64$hashB64` with a fresh salt;
 * N is `custody.scryptCost` (config/scrypt-cost.ts), and verifyPassword reads it back from the hash.
 */
export async function hashPassword(sha256HexPassword: string, scryptCost = DEFAULT_SCRYPT_COST): Promise<string> {
  assertScryptCost(scryptCost);
  const salt = randomBytes(SALT_BYTES);
  const hash = await scryptAsync(normalize(sha256HexPassword), salt, HASH_BYTES, scryptCost, SCRYPT_R, SCRYPT_P);
  return ['scrypt', scryptCost, SCRYPT_R, SCRYPT_P, salt.toString('base64'), hash.toString('base64')].join('$');
}

/**
 * Whether a password (as sent: SHA-256 hex) matches a stored hash from hashPassword. Throws when the
 * stored string is not such a hash: that is corrupted data, not a wrong password.
 */
export async function verifyPassword(sha256HexPassword: string, stored: string): Promise<boolean> {
  const { N, r, p, salt, hash } = parseStoredHash(stored);
  const candidate = await scryptAsync(normalize(sha256HexPassword), salt, hash.length, N, r, p);
  return timingSafeEqual(candidate, hash);
}

function parseStoredHash(stored: string): { N: number; r: number; p: number; salt: Buffer; hash: Buffer } {
  const parts = stored.split('$');
  const [scheme, nText, rText, pText, saltText, hashText] = parts;
  const N = Number(nText);
  const r = Number(rText);
  const p = Number(pText);
  const salt = Buffer.from(saltText ?? '', 'base64');
  const hash = Buffer.from(hashText ?? '', 'base64');
  const valid =
    parts.length === 6 &&
    scheme === 'scrypt' &&
    Number.isInteger(N) && N > 1 && N <= MAX_N && (N & (N - 1)) === 0 &&
    Number.isInteger(r) && r >= 1 && r <= MAX_R &&
    Number.isInteger(p) && p >= 1 && p <= MAX_P &&
    salt.length >= 8 &&
    hash.length >= 16;
  if (!valid) throw new Error('the stored password hash is not a scrypt hash of this service');
  return { N, r, p, salt, hash };
}

/** Hex digits are case-insensitive; the same password must give the same hash either way. */
function normalize(sha256HexPassword: string): string {
  return sha256HexPassword.toLowerCase();
}

function scryptAsync(password: string, salt: Buffer, length: number, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, length, { N, r, p, maxmem: 2 * 128 * N * r * p }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}
