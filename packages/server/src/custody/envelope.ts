import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, scrypt } from 'node:crypto';

/**
 * Envelope encryption of signing secrets.
 *
 *   encryptedSecret = AES-256-GCM(dataKey, secret, AAD = `${ownerId}|${address}`)
 *   wrappedDataKey  = AES-256-GCM(KEK, dataKey)
 *
 * dataKey is 32 random bytes per key; kdfSalt is 32 random bytes per key (new on every PIN change).
 * Every ciphertext is packed as base64(iv[12] | ciphertext | tag[16]).
 *
 * KEK of `server` keys:
 *   KEK = HKDF-SHA256(ikm = masterKey, salt = kdfSalt, info = "wallet-service kek v1 server")
 *
 * KEK of `pin` keys (both the master key and the PIN are required):
 *   stretched = scrypt(lower-case PIN as UTF-8, salt = kdfSalt, N = 2^15, r = 8, p = 1, dkLen = 32)
 *   pepper    = HKDF-SHA256(ikm = masterKey, salt = kdfSalt, info = "wallet-service kek v1 pin pepper")
 *   KEK       = HKDF-SHA256(ikm = stretched, salt = pepper, info = "wallet-service kek v1 pin")
 * HKDF-Extract is HMAC-SHA256(pepper, stretched), so without the master key a stolen database gives no
 * way to test a PIN guess offline; with the master key each guess still costs one scrypt. The GCM tag
 * of the wrapped data key is the only PIN check: no PIN verifier is stored.
 */

const KEY_BYTES = 32;
const SALT_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const EVM_ADDRESS = /^0x[0-9a-f]{40}$/;

const SCRYPT_N = 2 ** 15;
const SCRYPT_R = 8;
const SCRYPT_P = 1;
// scrypt needs 128 * N * r * p bytes plus a little; Node's 32 MiB default is just too small for N = 2^15.
const SCRYPT_MAXMEM = 2 * 128 * SCRYPT_N * SCRYPT_R * SCRYPT_P;

const SERVER_KEK_INFO = 'wallet-service kek v1 server';
const PIN_PEPPER_INFO = 'wallet-service kek v1 pin pepper';
const PIN_KEK_INFO = 'wallet-service kek v1 pin';

/** The three stored columns of a sealed secret, each base64. */
export interface SealedSecret {
  kdfSalt: string;
  wrappedDataKey: string;
  encryptedSecret: string;
}

/** The part of a sealed secret that a PIN change replaces. */
export type WrappedDataKey = Pick<SealedSecret, 'kdfSalt' | 'wrappedDataKey'>;

/** A GCM tag did not verify: wrong PIN, wrong master key, or data that does not belong to this owner/address. */
export class WrongKeyError extends Error {
  override readonly name = 'WrongKeyError';
  constructor(message = 'the key does not open this ciphertext') {
    super(message);
  }
}

/** Encrypts a secret under a fresh data key and wraps that key for `server` (no pin) or `pin` protection. */
export async function sealSecret(input: {
  masterKey: Uint8Array;
  secret: Uint8Array;
  ownerId: string;
  address: string;
  pin?: string | undefined;
}): Promise<SealedSecret> {
  assertMasterKey(input.masterKey);
  const aad = associatedData(input.ownerId, input.address);
  const dataKey = randomBytes(KEY_BYTES);
  const salt = randomBytes(SALT_BYTES);
  const kek = await deriveKek(input.masterKey, salt, input.pin);
  try {
    return {
      kdfSalt: salt.toString('base64'),
      wrappedDataKey: encrypt(kek, dataKey),
      encryptedSecret: encrypt(dataKey, input.secret, aad),
    };
  } finally {
    dataKey.fill(0);
    kek.fill(0);
  }
}

/**
 * Decrypts a sealed secret. Throws WrongKeyError when the PIN (or its absence), the master key, the
 * owner id or the address does not match what it was sealed with. The caller zeroes the result.
 */
export async function openSecret(input: {
  masterKey: Uint8Array;
  sealed: SealedSecret;
  ownerId: string;
  address: string;
  pin?: string | undefined;
}): Promise<Uint8Array> {
  const aad = associatedData(input.ownerId, input.address);
  const dataKey = await unwrapDataKey(input.masterKey, input.sealed, input.pin);
  try {
    return decrypt(dataKey, input.sealed.encryptedSecret, aad);
  } finally {
    dataKey.fill(0);
  }
}

/**
 * Re-wraps the data key of a `pin` key under a new salt and a new PIN. Only the data key is
 * unwrapped (WrongKeyError when oldPin is wrong); encryptedSecret stays as it is.
 */
export async function rewrapDataKey(input: {
  masterKey: Uint8Array;
  sealed: WrappedDataKey;
  oldPin: string;
  newPin: string;
}): Promise<WrappedDataKey> {
  return rewrap(input.masterKey, input.sealed, input.oldPin, input.newPin);
}

/**
 * Turns the wrapping of a `server` key into that of a `pin` key: the data key is unwrapped with the
 * server KEK (WrongKeyError when it is not a server wrapping) and wrapped again under a new salt and
 * the PIN-bound KEK. encryptedSecret, and so its AAD `owner id | address`, stays as it is.
 */
export async function wrapServerDataKeyWithPin(input: {
  masterKey: Uint8Array;
  sealed: WrappedDataKey;
  pin: string;
}): Promise<WrappedDataKey> {
  if (!input.pin) throw new Error('a PIN is required');
  return rewrap(input.masterKey, input.sealed, undefined, input.pin);
}

/** Unwraps the data key with the old KEK (no PIN: the server KEK) and wraps it under a new salt and PIN. */
async function rewrap(masterKey: Uint8Array, sealed: WrappedDataKey, oldPin: string | undefined, newPin: string): Promise<WrappedDataKey> {
  const dataKey = await unwrapDataKey(masterKey, sealed, oldPin);
  const salt = randomBytes(SALT_BYTES);
  try {
    const kek = await deriveKek(masterKey, salt, newPin);
    try {
      return { kdfSalt: salt.toString('base64'), wrappedDataKey: encrypt(kek, dataKey) };
    } finally {
      kek.fill(0);
    }
  } finally {
    dataKey.fill(0);
  }
}

/**
 * The associated data binding a ciphertext to its row. The address has a fixed shape without `|`,
 * so the string splits back into one owner id and one address only.
 */
function associatedData(ownerId: string, address: string): Buffer {
  if (!EVM_ADDRESS.test(address)) throw new Error('the address must be a lower-case 0x EVM address');
  return Buffer.from(`${ownerId}|${address}`, 'utf8');
}

async function unwrapDataKey(masterKey: Uint8Array, sealed: WrappedDataKey, pin: string | undefined): Promise<Buffer> {
  assertMasterKey(masterKey);
  const kek = await deriveKek(masterKey, Buffer.from(sealed.kdfSalt, 'base64'), pin);
  try {
    const dataKey = decrypt(kek, sealed.wrappedDataKey);
    if (dataKey.length !== KEY_BYTES) {
      dataKey.fill(0);
      throw new WrongKeyError('the wrapped data key has the wrong length');
    }
    return dataKey;
  } finally {
    kek.fill(0);
  }
}

async function deriveKek(masterKey: Uint8Array, salt: Uint8Array, pin: string | undefined): Promise<Buffer> {
  if (pin === undefined) return hkdf(masterKey, salt, SERVER_KEK_INFO);
  const stretched = await scryptAsync(normalizePin(pin), salt);
  const pepper = hkdf(masterKey, salt, PIN_PEPPER_INFO);
  try {
    return hkdf(stretched, pepper, PIN_KEK_INFO);
  } finally {
    stretched.fill(0);
    pepper.fill(0);
  }
}

/** PINs arrive as SHA-256 hex; the case of the hex digits must not matter. */
function normalizePin(pin: string): string {
  return pin.toLowerCase();
}

function hkdf(ikm: Uint8Array, salt: Uint8Array, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, salt, info, KEY_BYTES));
}

function scryptAsync(password: string, salt: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_BYTES, { N: SCRYPT_N, r: SCRYPT_R, p: SCRYPT_P, maxmem: SCRYPT_MAXMEM }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

function encrypt(key: Uint8Array, plaintext: Uint8Array, aad?: Buffer): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  if (aad) cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64');
}

function decrypt(key: Uint8Array, packed: string, aad?: Buffer): Buffer {
  const bytes = Buffer.from(packed, 'base64');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new WrongKeyError('the ciphertext is truncated');
  const iv = bytes.subarray(0, IV_BYTES);
  const tag = bytes.subarray(bytes.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  if (aad) decipher.setAAD(aad);
  const head = decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES));
  try {
    return Buffer.concat([head, decipher.final()]);
  } catch {
    throw new WrongKeyError();
  } finally {
    // The unverified plaintext must not outlive a failed tag check.
    head.fill(0);
  }
}

function assertMasterKey(masterKey: Uint8Array): void {
  if (masterKey.length !== KEY_BYTES) throw new Error(`the master key must be ${KEY_BYTES} bytes`);
}
