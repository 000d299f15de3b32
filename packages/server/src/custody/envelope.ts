import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { assertScryptCost, DEFAULT_SCRYPT_COST, isScryptCost } from '../config/scrypt-cost.ts';

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
 *   stretched = scrypt(lower-case PIN as UTF-8, salt = kdfSalt, N, r = 8, p = 1, dkLen = 32)
 *   pepper    = HKDF-SHA256(ikm = masterKey, salt = kdfSalt, info = "wallet-service kek v1 pin pepper")
 *   KEK       = HKDF-SHA256(ikm = stretched, salt = pepper, info = "wallet-service kek v1 pin")
 * HKDF-Extract is HMAC-SHA256(pepper, stretched), so without the master key a stolen database gives no
 * way to test a PIN guess offline; with the master key each guess still costs one scrypt. The GCM tag
 * of the wrapped data key is the PIN check. A PIN change also leaves
 *   pinChangeCheck = base64(HMAC-SHA256(KEK of the new PIN, "wallet-service pin change v1|" + old PIN))
 * so a repeat of that change (old and new PIN both right) is told from a wrong PIN; testing a guess of
 * the new PIN against it costs what testing it against the wrapping does, and it says nothing of the
 * old PIN to anyone without the new one.
 *
 * A master key rotation cannot derive the new PIN KEK without the PIN, so a `pin` key it moves keeps
 * its PIN KEK and hides what depended on the old master key under the new one (no PIN needed):
 *   wrappedDataKey = "r1:" + AES-GCM(HKDF(newMasterKey, kdfSalt, "wallet-service kek v1 rotated pin"), pepper | inner)
 * where inner is the previous wrapping's bytes. The old master key alone then opens nothing: the
 * inner wrapping a PIN guess would be tested against is sealed under the new key. A PIN change
 * writes the plain form again. `server` keys are simply wrapped again under the new master key.
 *
 * N is 2^15 unless the key was sealed under another `custody.scryptCost`: the stored kdfSalt is then
 * "n<log2 N>:" + base64(kdfSalt) (base64 never holds ':'), so every key opens with the N it was sealed with.
 */

const KEY_BYTES = 32;
const SALT_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const EVM_ADDRESS = /^0x[0-9a-f]{40}$/;

const SCRYPT_R = 8;
const SCRYPT_P = 1;
/** Marks the stored kdfSalt of a PIN key sealed with an N other than the default. */
const SCRYPT_COST_PREFIX = /^n(\d{1,2}):/;

const SERVER_KEK_INFO = 'wallet-service kek v1 server';
const PIN_PEPPER_INFO = 'wallet-service kek v1 pin pepper';
const PIN_KEK_INFO = 'wallet-service kek v1 pin';
const ROTATED_PIN_INFO = 'wallet-service kek v1 rotated pin';
const PIN_CHANGE_INFO = 'wallet-service pin change v1';
const MASTER_KEY_ID_INFO = 'wallet-service master key id';
/** Marks a `pin` wrapping moved by a master key rotation (base64 never holds ':'). */
const ROTATED_PREFIX = 'r1:';

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
  /** scrypt's N for a PIN key (config/scrypt-cost.ts). */
  scryptCost?: number | undefined;
}): Promise<SealedSecret> {
  assertMasterKey(input.masterKey);
  const aad = associatedData(input.ownerId, input.address);
  const dataKey = randomBytes(KEY_BYTES);
  const salt = newSalt(input.pin === undefined ? DEFAULT_SCRYPT_COST : input.scryptCost);
  const kek = await deriveKek(input.masterKey, salt, input.pin);
  try {
    return {
      kdfSalt: salt.text,
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
 * unwrapped (WrongKeyError when oldPin is wrong); encryptedSecret stays as it is. Also answers the
 * change's pinChangeCheck (the top of this file).
 */
export async function rewrapDataKey(input: {
  masterKey: Uint8Array;
  sealed: WrappedDataKey;
  oldPin: string;
  newPin: string;
  /** The master key to wrap under, when it is not the one the key is wrapped under now (a rotation). */
  newMasterKey?: Uint8Array | undefined;
  /** scrypt's N under the new PIN (config/scrypt-cost.ts). */
  scryptCost?: number | undefined;
}): Promise<WrappedDataKey & { pinChangeCheck: string }> {
  const rewrapped = await rewrap(input.masterKey, input.sealed, input.oldPin, input.newPin, input.newMasterKey, input.scryptCost);
  return { kdfSalt: rewrapped.kdfSalt, wrappedDataKey: rewrapped.wrappedDataKey, pinChangeCheck: rewrapped.pinChangeCheck! };
}

/**
 * Whether `check`, left by the change that made `sealed`, says this call asks for that same change:
 * `oldPin` the PIN it replaced, `newPin` the PIN it set. Costs one scrypt. Under another master key:
 * false, or WrongKeyError for a wrapping a rotation moved.
 */
export async function isPinChangeRepeat(input: { masterKey: Uint8Array; sealed: WrappedDataKey; check: string; oldPin: string; newPin: string }): Promise<boolean> {
  assertMasterKey(input.masterKey);
  const salt = storedSalt(input.sealed.kdfSalt);
  const kek = await pinKek(input.newPin, salt, peelPinWrapping(input.masterKey, input.sealed).pepper);
  try {
    const expected = Buffer.from(pinChangeCheck(kek, input.oldPin), 'base64');
    const given = Buffer.from(input.check, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  } finally {
    kek.fill(0);
  }
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
  newMasterKey?: Uint8Array | undefined;
  scryptCost?: number | undefined;
}): Promise<WrappedDataKey> {
  if (!input.pin) throw new Error('a PIN is required');
  return rewrap(input.masterKey, input.sealed, undefined, input.pin, input.newMasterKey, input.scryptCost);
}

/**
 * Moves a wrapped data key from one master key to another without a PIN (see the top of this file):
 * `server` keys are wrapped again under a new salt, `pin` keys get the rotated form. WrongKeyError
 * when `from` does not open it. encryptedSecret stays as it is.
 */
export async function rewrapForMasterKey(input: {
  from: Uint8Array;
  to: Uint8Array;
  sealed: WrappedDataKey;
  protection: 'server' | 'pin';
}): Promise<WrappedDataKey> {
  assertMasterKey(input.to);
  if (input.protection === 'server') {
    const dataKey = await unwrapDataKey(input.from, input.sealed, undefined);
    const salt = newSalt(DEFAULT_SCRYPT_COST);
    const kek = hkdf(input.to, salt.bytes, SERVER_KEK_INFO);
    try {
      return { kdfSalt: salt.text, wrappedDataKey: encrypt(kek, dataKey) };
    } finally {
      dataKey.fill(0);
      kek.fill(0);
    }
  }
  assertMasterKey(input.from);
  const { pepper, inner } = peelPinWrapping(input.from, input.sealed);
  // The kdfSalt stays as it is, with its N: the PIN KEK inside is unchanged.
  const { bytes: salt } = storedSalt(input.sealed.kdfSalt);
  const outerKey = hkdf(input.to, salt, ROTATED_PIN_INFO);
  const payload = Buffer.concat([pepper, inner]);
  try {
    return { kdfSalt: input.sealed.kdfSalt, wrappedDataKey: ROTATED_PREFIX + encrypt(outerKey, payload) };
  } finally {
    pepper.fill(0);
    outerKey.fill(0);
    payload.fill(0);
  }
}

const SEALED_VALUE_INFO = 'wallet-service sealed value v1';
const VALUE_SALT_BYTES = 16;

/**
 * Seals a secret the service itself must read back (a webhook signing secret) under the master key:
 *   key    = HKDF-SHA256(ikm = masterKey, salt = 16 random bytes, info = "wallet-service sealed value v1")
 *   sealed = base64(salt | iv[12] | AES-256-GCM(key, value, AAD = context) | tag[16])
 * `context` names where the value belongs (a row and column), so a sealed value moved elsewhere does not open.
 */
export function sealValue(masterKey: Uint8Array, value: string, context: string): string {
  assertMasterKey(masterKey);
  const salt = randomBytes(VALUE_SALT_BYTES);
  const key = hkdf(masterKey, salt, SEALED_VALUE_INFO);
  try {
    return Buffer.concat([salt, Buffer.from(encrypt(key, Buffer.from(value, 'utf8'), Buffer.from(context, 'utf8')), 'base64')]).toString('base64');
  } finally {
    key.fill(0);
  }
}

/** Opens what sealValue sealed; WrongKeyError under another master key or context. */
export function openValue(masterKey: Uint8Array, sealed: string, context: string): string {
  assertMasterKey(masterKey);
  const bytes = Buffer.from(sealed, 'base64');
  if (bytes.length < VALUE_SALT_BYTES + IV_BYTES + TAG_BYTES) throw new WrongKeyError('the sealed value is truncated');
  const key = hkdf(masterKey, bytes.subarray(0, VALUE_SALT_BYTES), SEALED_VALUE_INFO);
  try {
    return decrypt(key, bytes.subarray(VALUE_SALT_BYTES), Buffer.from(context, 'utf8')).toString('utf8');
  } finally {
    key.fill(0);
  }
}

/** A short public id of a master key (HKDF, so it says nothing about the key): which key wraps a row. */
export function masterKeyId(masterKey: Uint8Array): string {
  assertMasterKey(masterKey);
  return Buffer.from(hkdfSync('sha256', masterKey, new Uint8Array(0), MASTER_KEY_ID_INFO, 8)).toString('hex');
}

/**
 * The master key's part of a `pin` wrapping, the pepper, and the bytes the PIN KEK opens: derived
 * for the plain form, unsealed for the rotated form (WrongKeyError under another master key).
 */
function peelPinWrapping(masterKey: Uint8Array, sealed: WrappedDataKey): { pepper: Buffer; inner: Buffer } {
  const { bytes: salt } = storedSalt(sealed.kdfSalt);
  if (!sealed.wrappedDataKey.startsWith(ROTATED_PREFIX)) {
    return { pepper: hkdf(masterKey, salt, PIN_PEPPER_INFO), inner: Buffer.from(sealed.wrappedDataKey, 'base64') };
  }
  const outerKey = hkdf(masterKey, salt, ROTATED_PIN_INFO);
  try {
    const payload = decrypt(outerKey, Buffer.from(sealed.wrappedDataKey.slice(ROTATED_PREFIX.length), 'base64'));
    if (payload.length <= KEY_BYTES) throw new WrongKeyError('the rotated wrapping is truncated');
    return { pepper: payload.subarray(0, KEY_BYTES), inner: payload.subarray(KEY_BYTES) };
  } finally {
    outerKey.fill(0);
  }
}

/** Unwraps the data key with the old KEK (no PIN: the server KEK) and wraps it under a new salt and PIN. */
async function rewrap(
  masterKey: Uint8Array,
  sealed: WrappedDataKey,
  oldPin: string | undefined,
  newPin: string,
  newMasterKey: Uint8Array = masterKey,
  scryptCost?: number,
): Promise<WrappedDataKey & { pinChangeCheck?: string }> {
  const dataKey = await unwrapDataKey(masterKey, sealed, oldPin);
  const salt = newSalt(scryptCost);
  try {
    const kek = await deriveKek(newMasterKey, salt, newPin);
    try {
      return { kdfSalt: salt.text, wrappedDataKey: encrypt(kek, dataKey), ...(oldPin !== undefined ? { pinChangeCheck: pinChangeCheck(kek, oldPin) } : {}) };
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
  const salt = storedSalt(sealed.kdfSalt);
  if (pin === undefined && sealed.wrappedDataKey.startsWith(ROTATED_PREFIX)) throw new WrongKeyError('a PIN-protected key needs its PIN');
  let kek: Buffer;
  let inner: Buffer;
  if (pin === undefined) {
    kek = hkdf(masterKey, salt.bytes, SERVER_KEK_INFO);
    inner = Buffer.from(sealed.wrappedDataKey, 'base64');
  } else {
    const peeled = peelPinWrapping(masterKey, sealed);
    inner = peeled.inner;
    kek = await pinKek(pin, salt, peeled.pepper);
  }
  try {
    const dataKey = decrypt(kek, inner);
    if (dataKey.length !== KEY_BYTES) {
      dataKey.fill(0);
      throw new WrongKeyError('the wrapped data key has the wrong length');
    }
    return dataKey;
  } finally {
    kek.fill(0);
  }
}

async function deriveKek(masterKey: Uint8Array, salt: KdfSalt, pin: string | undefined): Promise<Buffer> {
  if (pin === undefined) return hkdf(masterKey, salt.bytes, SERVER_KEK_INFO);
  return pinKek(pin, salt, hkdf(masterKey, salt.bytes, PIN_PEPPER_INFO));
}

/** The PIN KEK from the PIN and the master key's pepper (zeroed here). */
async function pinKek(pin: string, salt: KdfSalt, pepper: Buffer): Promise<Buffer> {
  let stretched: Buffer;
  try {
    stretched = await scryptAsync(normalizePin(pin), salt.bytes, salt.cost);
  } catch (error) {
    pepper.fill(0);
    throw error;
  }
  try {
    return hkdf(stretched, pepper, PIN_KEK_INFO);
  } finally {
    stretched.fill(0);
    pepper.fill(0);
  }
}

function pinChangeCheck(newPinKek: Buffer, oldPin: string): string {
  return createHmac('sha256', newPinKek).update(`${PIN_CHANGE_INFO}|${normalizePin(oldPin)}`).digest('base64');
}

/** PINs arrive as SHA-256 hex; the case of the hex digits must not matter. */
function normalizePin(pin: string): string {
  return pin.toLowerCase();
}

function hkdf(ikm: Uint8Array, salt: Uint8Array, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, salt, info, KEY_BYTES));
}

/** A key's kdfSalt: its bytes, scrypt's N for its PIN, and the text stored. */
interface KdfSalt {
  bytes: Buffer;
  cost: number;
  text: string;
}

function newSalt(cost = DEFAULT_SCRYPT_COST): KdfSalt {
  assertScryptCost(cost);
  const bytes = randomBytes(SALT_BYTES);
  const text = bytes.toString('base64');
  return { bytes, cost, text: cost === DEFAULT_SCRYPT_COST ? text : `n${Math.log2(cost)}:${text}` };
}

function storedSalt(text: string): KdfSalt {
  const prefix = SCRYPT_COST_PREFIX.exec(text);
  const cost = prefix ? 2 ** Number(prefix[1]) : DEFAULT_SCRYPT_COST;
  // Corrupted data, not a wrong PIN (nothing is counted); and scrypt must not take unbounded memory.
  if (!isScryptCost(cost)) throw new Error(`the key's stored scrypt cost 2^${prefix?.[1]} is out of range`);
  return { bytes: Buffer.from(prefix ? text.slice(prefix[0].length) : text, 'base64'), cost, text };
}

function scryptAsync(password: string, salt: Uint8Array, N: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // scrypt needs 128 * N * r * p bytes plus a little; Node's 32 MiB default is just too small for N = 2^15.
    scrypt(password, salt, KEY_BYTES, { N, r: SCRYPT_R, p: SCRYPT_P, maxmem: 2 * 128 * N * SCRYPT_R * SCRYPT_P }, (error, key) =>
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

function decrypt(key: Uint8Array, packed: string | Buffer, aad?: Buffer): Buffer {
  const bytes = typeof packed === 'string' ? Buffer.from(packed, 'base64') : packed;
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
