import { randomUUID } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { HDKey } from '@scure/bip32';
import { entropyToMnemonic, generateMnemonic, mnemonicToEntropy, mnemonicToSeedSync } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import type { SerializeTransactionFn, TransactionSerializable } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { AppError } from '../errors/app-error.ts';
import { KeyedQueue } from '../lib/keyed-queue.ts';
import { epochSeconds, type Db, type DbTransaction } from '../store/database.ts';
import type { KeyOwnerType, KeyProtection, KeySecretKind, SigningKeyRow } from '../store/schema.ts';
import { signTransactionWithKey } from './transaction-signature.ts';
import { isPinChangeRepeat, openSecret, openValue, rewrapDataKey, rewrapForMasterKey, sealSecret, sealValue, wrapServerDataKeyWithPin, WrongKeyError, type SealedSecret } from './envelope.ts';
import { MasterKeyRing } from './master-key-ring.ts';
import { UnlockedKeys } from './unlocked-keys.ts';
import { Errors } from '../errors/codes.ts';
import {
  clearPinFailures,
  countPinAttempt,
  findKeyOfOwner,
  findPinFailures,
  findKeyWrapping,
  findSealedKey,
  insertSigningKey,
  readMasterKeyState,
  replaceWrapping,
  uncountPinAttempt,
  type KeyWrapping,
  type SealedRow,
} from './store.ts';

/** Wrong PINs in a row after which a key is locked until the operator resets it. */
export const MAX_PIN_FAILURES = 5;

/** BIP-44 path of the first EVM account of a mnemonic (what wallets show as "Account 1"). */
export const EVM_DERIVATION_PATH = "m/44'/60'/0'/0/0";

/** A decrypted signing key, ready to sign. Hold it only as long as the operation needs it. */
export interface UnlockedKey {
  keyId: string;
  address: `0x${string}`;
  account: PrivateKeyAccount;
  /** The BIP-39 phrase, for keys whose secret is mnemonic entropy. */
  mnemonic?: string;
}

/** What createKey needs; `pin` is required exactly when protection is 'pin'. */
export interface CreateKeyInput {
  ownerType: KeyOwnerType;
  ownerId: string;
  protection: KeyProtection;
  secretKind: KeySecretKind;
  /** The PIN as sent by the client: SHA-256 hex. */
  pin?: string | undefined;
}

/** No signing key has the id that was asked for. */
/** What a key vault tells its owner of. */
export interface KeyVaultEvents {
  /** A wrong PIN was the fifth in a row: the key is locked until the operator unlocks it. */
  pinLocked(): void;
}

export class SigningKeyNotFoundError extends Error {
  override readonly name = 'SigningKeyNotFoundError';
  constructor(readonly keyId: string) {
    super(`signing key ${keyId} not found`);
  }
}

/**
 * The EVM private key at m/44'/60'/0'/0/0 of a BIP-39 mnemonic (no passphrase). The caller zeroes it.
 */
export function deriveEvmPrivateKey(mnemonic: string): Uint8Array {
  const seed = mnemonicToSeedSync(mnemonic);
  const root = HDKey.fromMasterSeed(seed);
  const child = root.derive(EVM_DERIVATION_PATH);
  try {
    if (!child.privateKey) throw new Error('the derived key has no private part');
    return Uint8Array.from(child.privateKey);
  } finally {
    child.wipePrivateData();
    root.wipePrivateData();
    seed.fill(0);
  }
}

/**
 * Creates, stores and unlocks signing keys. Secrets are sealed by the envelope module before they
 * reach the store; `pin` keys count wrong PINs in the row and lock after MAX_PIN_FAILURES in a row.
 */
export class KeyVault {
  readonly #db: Db;
  /** The master keys rows are wrapped under, by id (each row names its own). */
  readonly #keys: MasterKeyRing;
  /**
   * PIN attempts on one key, one at a time in this process. Each attempt is counted before it is
   * tried, so attempts running side by side would count as failures until they finish: a burst of
   * right PINs (a partner minting in parallel) would find the key "locked". In turn, only wrong
   * PINs stay counted. The count's guard in the store still bounds guesses across processes.
   */
  readonly #pinAttempts = new KeyedQueue();
  /** PIN keys unlocked within the last minute (see unlocked-keys.ts). */
  readonly #unlocked: UnlockedKeys<UnlockedKey>;

  /** Helper shared with code that derives addresses from mnemonics. */
  static readonly deriveEvmPrivateKey = deriveEvmPrivateKey;

  /** Told when a wrong PIN locks a key (metrics). */
  readonly #events: KeyVaultEvents | undefined;
  /** scrypt's N for PINs set from now on (config custody.scryptCost); each key keeps its own. */
  readonly #scryptCost: number | undefined;

  /**
   * `unlockedKeys`: how long an unlocked PIN key is kept (ttlMs, 0 for never) and the clock (tests);
   * `events`: told when a wrong PIN locks a key (metrics); `scryptCost`: scrypt's N for new PINs.
   */
  constructor(
    db: Db,
    masterKey: Uint8Array | MasterKeyRing,
    options: { unlockedKeys?: { ttlMs?: number; now?: () => number }; events?: KeyVaultEvents; scryptCost?: number } = {},
  ) {
    this.#events = options.events;
    this.#scryptCost = options.scryptCost;
    const keys = masterKey instanceof MasterKeyRing ? masterKey : new MasterKeyRing(masterKey);
    if (keys.primary.length !== 32) throw new Error('the master key must be 32 bytes');
    this.#db = db;
    this.#keys = keys;
    this.#unlocked = new UnlockedKeys(options.unlockedKeys);
  }

  /** Forgets every unlocked key held in memory (the service is closing). */
  forgetUnlockedKeys(): void {
    this.#unlocked.clear();
  }

  /** How many unlocked PIN keys are held in memory now. */
  get unlockedKeysHeld(): number {
    return this.#unlocked.size;
  }

  /**
   * Generates a secret of the given kind, seals it and inserts the row (in `trx` when given, so the
   * key commits together with its owner). Returns the new key id and its lower-case address.
   */
  async createKey(input: CreateKeyInput, trx?: Db | DbTransaction): Promise<{ keyId: string; address: `0x${string}` }> {
    if (input.protection === 'pin' && !input.pin) throw new Error('a pin-protected key needs a PIN');
    if (input.protection === 'server' && input.pin !== undefined) throw new Error('a server-protected key takes no PIN');

    const secret =
      input.secretKind === 'private_key'
        ? secp256k1.utils.randomSecretKey()
        : mnemonicToEntropy(generateMnemonic(wordlist, 128), wordlist);
    const keyId = randomUUID();
    const db = trx ?? this.#db;
    try {
      const address = addressOf(input.secretKind, secret);
      const sealing = await this.#sealingKey(db);
      const sealed = await sealSecret({
        masterKey: sealing.key,
        secret,
        ownerId: input.ownerId,
        address,
        pin: input.protection === 'pin' ? input.pin : undefined,
        scryptCost: this.#scryptCost,
      });
      const now = epochSeconds();
      await insertSigningKey(db, {
          id: keyId,
          owner_type: input.ownerType,
          owner_id: input.ownerId,
          address,
          secret_kind: input.secretKind,
          protection: input.protection,
          kdf_salt: sealed.kdfSalt,
          wrapped_data_key: sealed.wrappedDataKey,
          encrypted_secret: sealed.encryptedSecret,
          pin_failures: 0,
          master_key_id: sealing.id,
          pin_change_check: null,
          created_at: now,
          updated_at: now,
        });
      await this.#settle(db, keyId, sealing.id);
      return { keyId, address };
    } finally {
      secret.fill(0);
    }
  }

  /**
   * Decrypts a key. `server` keys take no PIN. For `pin` keys the attempt is counted before the PIN is
   * tried: a locked key gives AppError 403 without trying, a wrong PIN gives 4006 (403 when it is the
   * MAX_PIN_FAILURES-th in a row, which locks the key), the right PIN resets the count.
   */
  async unlock(keyId: string, pin?: string): Promise<UnlockedKey> {
    const row = await this.#sealedRow(keyId);
    if (row.protection === 'server') {
      if (pin !== undefined) throw new Error(`signing key ${keyId} is server-protected and takes no PIN`);
      const secret = await openSecret({ masterKey: await this.#keys.get(row.master_key_id), sealed: sealedOf(row), ownerId: row.owner_id, address: row.address });
      return toUnlockedKey(keyId, row, secret);
    }
    requirePin(pin, row.pin_failures);
    // Held keys are used only while the row, read just now, shows no wrong PIN and the wrapping they
    // were unlocked under: a wrong PIN or lock counted by any process drops the key here at once,
    // and a PIN change made anywhere makes it unusable.
    if (Number(row.pin_failures) === 0) {
      const held = this.#unlocked.get(keyId, pin, wrappingOf(row));
      if (held) return held;
    } else {
      this.#unlocked.delete(keyId);
    }
    // Finds the row's master key before a PIN attempt is counted: a missing key is no wrong PIN.
    await this.#keys.get(row.master_key_id);
    return this.#pinAttempts.run(keyId, () => this.#unlockWithPin(keyId, pin));
  }

  async #unlockWithPin(keyId: string, pin: string): Promise<UnlockedKey> {
    const attempt = await this.#countAttempt(keyId);
    let secret: Uint8Array;
    try {
      secret = await openSecret({
        masterKey: await this.#keys.get(attempt.master_key_id),
        sealed: sealedOf(attempt),
        ownerId: attempt.owner_id,
        address: attempt.address,
        pin,
      });
    } catch (error) {
      if (error instanceof WrongKeyError) this.#unlocked.delete(keyId);
      throw this.#pinError(error, attempt.pin_failures);
    }
    try {
      await clearPinFailures(this.#db, keyId);
      const unlocked = toUnlockedKey(keyId, attempt, secret);
      this.#unlocked.set(keyId, pin, wrappingOf(attempt), unlocked);
      return unlocked;
    } finally {
      secret.fill(0);
    }
  }

  /**
   * Replaces the PIN of a `pin` key. The old PIN is checked under the same counting rules as unlock,
   * so a locked key stays locked (403) until the operator resets it. Only the wrapped data key and its
   * salt change; the count is reset in the same guarded UPDATE, which fails (4006) when another change
   * replaced the wrapping in the meantime.
   */
  async changePin(keyId: string, oldPin: string, newPin: string): Promise<void> {
    const row = await this.#sealedRow(keyId);
    if (row.protection !== 'pin') throw new Error(`signing key ${keyId} is server-protected and has no PIN`);
    if (!newPin) throw new AppError(Errors.BadRequest, { detail: 'the new PIN is missing' });
    requirePin(oldPin, row.pin_failures);
    if (newPin.toLowerCase() === oldPin.toLowerCase()) throw new AppError(Errors.SameAsBefore);
    await this.#pinAttempts.run(keyId, () => this.#rewrapUnderNewPin(keyId, oldPin, newPin, row));
  }

  /** `asked`: the key as it was when the change was asked for. */
  async #rewrapUnderNewPin(keyId: string, oldPin: string, newPin: string, asked: SealedRow): Promise<void> {
    this.#unlocked.delete(keyId);
    await this.#refuseWhenChangedMeanwhile(keyId, oldPin, asked);
    const sealing = await this.#sealingKey(this.#db);
    const attempt = await this.#countAttempt(keyId);
    let rewrapped: { kdfSalt: string; wrappedDataKey: string; pinChangeCheck: string };
    try {
      rewrapped = await rewrapDataKey({ masterKey: await this.#keys.get(attempt.master_key_id), newMasterKey: sealing.key, sealed: sealedOf(attempt), oldPin, newPin, scryptCost: this.#scryptCost });
    } catch (error) {
      if (error instanceof WrongKeyError && (await this.#repeatsLastChange(attempt, oldPin, newPin))) {
        await uncountPinAttempt(this.#db, keyId);
        throw new AppError(Errors.WrongPin, { detail: 'the PIN was changed at the same time' });
      }
      throw this.#pinError(error, attempt.pin_failures);
    }
    const replaced = await replaceWrapping(this.#db, {
      keyId,
      old: { kdfSalt: attempt.kdf_salt, wrappedDataKey: attempt.wrapped_data_key },
      next: { ...rewrapped, masterKeyId: sealing.id },
      now: epochSeconds(),
    });
    if (!replaced) throw new AppError(Errors.WrongPin, { detail: 'the PIN was changed at the same time' });
    await this.#settle(this.#db, keyId, sealing.id);
  }

  /**
   * This call asks for the very change that made the key's wrapping (its old and new PIN both
   * right): a repeat that reached the key after the change landed, here or at another instance, so
   * nothing is left to compare it with but what the change left (envelope.ts, pinChangeCheck).
   */
  async #repeatsLastChange(attempt: SealedRow, oldPin: string, newPin: string): Promise<boolean> {
    if (!attempt.pin_change_check) return false;
    try {
      return await isPinChangeRepeat({ masterKey: await this.#keys.get(attempt.master_key_id), sealed: sealedOf(attempt), check: attempt.pin_change_check, oldPin, newPin });
    } catch (error) {
      if (error instanceof WrongKeyError) return false;
      throw error;
    }
  }

  /**
   * Another change of the PIN landed while this one waited its turn (the same change sent twice, a
   * retry, two devices): when the old PIN opens the wrapping the change was asked against, the caller
   * was right and only beaten to it, so the answer is 4006 "changed at the same time" with no wrong
   * PIN counted (repeats of one change must not lock the key). A wrong old PIN goes on to be counted
   * against the current wrapping as usual, so this opens no way around the count.
   */
  async #refuseWhenChangedMeanwhile(keyId: string, oldPin: string, asked: SealedRow): Promise<void> {
    if (wrappingOf(await this.#sealedRow(keyId)) === wrappingOf(asked)) return;
    try {
      const secret = await openSecret({ masterKey: await this.#keys.get(asked.master_key_id), sealed: sealedOf(asked), ownerId: asked.owner_id, address: asked.address, pin: oldPin });
      secret.fill(0);
    } catch (error) {
      if (error instanceof WrongKeyError) return;
      throw error;
    }
    throw new AppError(Errors.WrongPin, { detail: 'the PIN was changed at the same time' });
  }

  /**
   * Turns a `server` key into a `pin` key that only `pin` unlocks from now on (a wallet kept for a
   * person, handed over when that person signs up). Only the data key is re-wrapped, under a new salt
   * and the PIN-bound KEK; the encrypted secret, its owner id and address (the AAD) stay as they are,
   * and no plaintext is written. The UPDATE is guarded by the wrapping it replaces, so it fails when
   * another change got there first. Runs in `trx` when given, to commit with the caller's changes.
   */
  async protectWithPin(keyId: string, pin: string, trx?: Db | DbTransaction): Promise<void> {
    if (!pin) throw new Error('protectWithPin needs a PIN');
    const db = trx ?? this.#db;
    const row = await findSealedKey(db, keyId);
    if (!row) throw new SigningKeyNotFoundError(keyId);
    if (row.protection !== 'server') throw new Error(`signing key ${keyId} is already PIN-protected`);
    const sealing = await this.#sealingKey(db);
    const wrapped = await wrapServerDataKeyWithPin({ masterKey: await this.#keys.get(row.master_key_id), newMasterKey: sealing.key, sealed: sealedOf(row), pin, scryptCost: this.#scryptCost });
    const replaced = await replaceWrapping(db, {
      keyId,
      old: { kdfSalt: row.kdf_salt, wrappedDataKey: row.wrapped_data_key, protection: 'server' },
      next: { kdfSalt: wrapped.kdfSalt, wrappedDataKey: wrapped.wrappedDataKey, protection: 'pin', masterKeyId: sealing.id },
      now: epochSeconds(),
    });
    if (!replaced) throw new Error(`signing key ${keyId} changed while it was being PIN-protected`);
    this.#unlocked.delete(keyId);
    await this.#settle(db, keyId, sealing.id);
  }

  /** Clears the wrong-PIN count, which also lifts a lock (an operator action). */
  async resetPinFailures(keyId: string): Promise<void> {
    if (!(await clearPinFailures(this.#db, keyId, epochSeconds()))) throw new SigningKeyNotFoundError(keyId);
  }

  /** Wrong PINs in a row so far; MAX_PIN_FAILURES means locked. */
  async pinFailures(keyId: string): Promise<number> {
    const failures = await findPinFailures(this.#db, keyId);
    if (failures === undefined) throw new SigningKeyNotFoundError(keyId);
    return failures;
  }

  /** The (first) key of an owner, or undefined when it has none. */
  async findByOwner(ownerType: KeyOwnerType, ownerId: string): Promise<{ keyId: string; address: `0x${string}` } | undefined> {
    const row = await findKeyOfOwner(this.#db, ownerType, ownerId);
    return row ? { keyId: row.id, address: row.address as `0x${string}` } : undefined;
  }

  /** The id of the master key this process runs with (the one it was given at start). */
  get masterKeyId(): string {
    return this.#keys.primaryId;
  }

  /** The master key with this id (a rotation's new key is read from the data directory). */
  async masterKey(id: string): Promise<Uint8Array> {
    return this.#keys.get(id);
  }

  /**
   * Wraps these keys' data keys under the master key `toId` instead of the one each row names (a
   * master key rotation): no PIN is needed, the encrypted secrets and wrong-PIN counts stay. Each
   * update is guarded by the wrapping it replaces; a key changed meanwhile is left for the next
   * pass. In `trx` when given, else in one transaction. How many keys moved.
   */
  async moveToMasterKey(rows: KeyWrapping[], toId: string, trx?: DbTransaction): Promise<number> {
    const to = await this.#keys.get(toId);
    const moves: Array<{ row: KeyWrapping; next: { kdfSalt: string; wrappedDataKey: string } }> = [];
    for (const row of rows) {
      const from = await this.#keys.get(row.master_key_id);
      const sealed = { kdfSalt: row.kdf_salt, wrappedDataKey: row.wrapped_data_key };
      moves.push({ row, next: await rewrapForMasterKey({ from, to, sealed, protection: row.protection }) });
    }
    const write = async (db: Db | DbTransaction) => {
      let moved = 0;
      for (const { row, next } of moves) {
        const replaced = await replaceWrapping(db, {
          keyId: row.id,
          old: { kdfSalt: row.kdf_salt, wrappedDataKey: row.wrapped_data_key },
          next: { ...next, masterKeyId: toId },
          now: epochSeconds(),
          keepPinFailures: true,
        });
        if (replaced) moved += 1;
      }
      return moved;
    };
    return trx ? write(trx) : this.#db.transaction().execute(write);
  }

  /**
   * Seals values the service reads back (webhook signing secrets, envelope.ts sealValue) under the
   * master key new wrappings go under; `context` names each one's place. With that key's id, which
   * the row stores: a master key rotation seals them again (custody/sealed-values.ts).
   */
  async sealValues(values: Array<{ value: string; context: string }>): Promise<{ masterKeyId: string; sealed: string[] }> {
    const sealing = await this.#sealingKey(this.#db);
    return { masterKeyId: sealing.id, sealed: values.map(({ value, context }) => sealValue(sealing.key, value, context)) };
  }

  /** Opens a value sealValues sealed under the master key `masterKeyId`. */
  async openValue(masterKeyId: string, sealed: string, context: string): Promise<string> {
    return openValue(await this.#keys.get(masterKeyId), sealed, context);
  }

  /** The key new wrappings go under: a rotation's new key once it has started. */
  async #sealingKey(db: Db | DbTransaction): Promise<{ id: string; key: Uint8Array }> {
    const { current, rotation } = await readMasterKeyState(db);
    const id = rotation?.to ?? current ?? this.#keys.primaryId;
    return { id, key: await this.#keys.get(id) };
  }

  /**
   * A rotation may have started while this key was being wrapped under the previous key; if so it
   * moves now, so no key is left under a master key the rotation is about to retire.
   */
  async #settle(db: Db | DbTransaction, keyId: string, sealedUnder: string): Promise<void> {
    const now = await this.#sealingKey(db);
    if (now.id === sealedUnder) return;
    const row = await findKeyWrapping(db, keyId);
    if (!row || row.master_key_id === now.id) return;
    if (db.isTransaction) await this.moveToMasterKey([row], now.id, db as DbTransaction);
    else await this.moveToMasterKey([row], now.id);
  }

  async #sealedRow(keyId: string): Promise<SealedRow> {
    const row = await findSealedKey(this.#db, keyId);
    if (!row) throw new SigningKeyNotFoundError(keyId);
    return row;
  }

  /** Maps a failed PIN check to the answer for the count that this attempt reached. */
  #pinError(error: unknown, failures: number): unknown {
    if (!(error instanceof WrongKeyError)) return error;
    if (failures === MAX_PIN_FAILURES) this.#events?.pinLocked();
    return failures >= MAX_PIN_FAILURES ? new AppError(Errors.PinLocked) : new AppError(Errors.WrongPin);
  }

  /**
   * Counts one PIN attempt, atomically and before it is tried, and returns the sealed material as of
   * that moment. The `< MAX_PIN_FAILURES` guard makes the database serialise concurrent guesses: at
   * most MAX_PIN_FAILURES of them can ever be counted, the rest find no row and get 403.
   */
  async #countAttempt(keyId: string): Promise<SealedRow> {
    const row = await countPinAttempt(this.#db, keyId, MAX_PIN_FAILURES);
    if (!row) throw new AppError(Errors.PinLocked);
    return { ...row, pin_failures: Number(row.pin_failures) };
  }
}

/** A missing PIN is refused without being counted: nothing was guessed. */
function requirePin(pin: string | undefined, failures: number): asserts pin is string {
  if (pin) return;
  throw Number(failures) >= MAX_PIN_FAILURES ? new AppError(Errors.PinLocked) : new AppError(Errors.WrongPin, { detail: 'the PIN is missing' });
}

/** What a held unlocked key is bound to: the PIN's wrapping of the data key, and the master key under it. */
function wrappingOf(row: Pick<SealedRow, 'master_key_id' | 'kdf_salt' | 'wrapped_data_key'>): string {
  return `${row.master_key_id}|${row.kdf_salt}|${row.wrapped_data_key}`;
}

function sealedOf(row: Pick<SealedRow, 'kdf_salt' | 'wrapped_data_key' | 'encrypted_secret'>): SealedSecret {
  return { kdfSalt: row.kdf_salt, wrappedDataKey: row.wrapped_data_key, encryptedSecret: row.encrypted_secret };
}

/** The lower-case address of a secret of the given kind. */
function addressOf(kind: KeySecretKind, secret: Uint8Array): `0x${string}` {
  const privateKey = kind === 'private_key' ? Uint8Array.from(secret) : deriveEvmPrivateKey(entropyToMnemonic(secret, wordlist));
  try {
    return privateKeyToAccount(toHex(privateKey)).address.toLowerCase() as `0x${string}`;
  } finally {
    privateKey.fill(0);
  }
}

/** Builds the signing account; checks it matches the stored address, so a mixed-up row cannot sign. */
function toUnlockedKey(
  keyId: string,
  row: Pick<SealedRow, 'address' | 'secret_kind'>,
  secret: Uint8Array,
): UnlockedKey {
  const mnemonic = row.secret_kind === 'mnemonic_entropy' ? entropyToMnemonic(secret, wordlist) : undefined;
  const privateKey = mnemonic === undefined ? Uint8Array.from(secret) : deriveEvmPrivateKey(mnemonic);
  try {
    const hexKey = toHex(privateKey);
    const local = privateKeyToAccount(hexKey);
    const address = local.address.toLowerCase() as `0x${string}`;
    if (address !== row.address) throw new Error(`signing key ${keyId} does not match its stored address`);
    // Transactions are signed with libsecp256k1 (transaction-signature.ts), with the serializer the
    // caller gives, as viem would.
    const account: PrivateKeyAccount = {
      ...local,
      signTransaction: (transaction, options) =>
        signTransactionWithKey(hexKey, transaction, options?.serializer as SerializeTransactionFn<TransactionSerializable> | undefined),
    };
    return mnemonic === undefined ? { keyId, address, account } : { keyId, address, account, mnemonic };
  } finally {
    privateKey.fill(0);
    secret.fill(0);
  }
}

function toHex(bytes: Uint8Array): `0x${string}` {
  const buffer = Buffer.from(bytes);
  try {
    return `0x${buffer.toString('hex')}`;
  } finally {
    buffer.fill(0);
  }
}
