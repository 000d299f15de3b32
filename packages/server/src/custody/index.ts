/** Custody: master key, envelope encryption of signing secrets, the key vault and password hashing. */
export { loadMasterKey, MasterKeyError, MASTER_KEY_FILE } from './master-key.ts';
export {
  openSecret,
  rewrapDataKey,
  sealSecret,
  WrongKeyError,
  type SealedSecret,
  type WrappedDataKey,
} from './envelope.ts';
export { hashPassword, sha256Hex, verifyPassword } from './passwords.ts';
export {
  deriveEvmPrivateKey,
  EVM_DERIVATION_PATH,
  KeyVault,
  MAX_PIN_FAILURES,
  SigningKeyNotFoundError,
  type CreateKeyInput,
  type UnlockedKey,
} from './key-vault.ts';
