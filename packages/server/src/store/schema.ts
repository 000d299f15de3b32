import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Row types of every table. Times are Unix epoch seconds unless the column name ends in `_ms`.
 * Amounts of wei and gas are decimal strings: they do not fit a JS number.
 */
export interface Database {
  signing_keys: SigningKeyTable;
  partners: PartnerTable;
  users: UserTable;
  nft_contracts: NftContractTable;
  account_nonces: AccountNonceTable;
  outbox_transactions: OutboxTransactionTable;
  service_settings: ServiceSettingTable;
}

export type KeyOwnerType = 'operator' | 'partner' | 'user' | 'fee_payer';
/** `server`: wrapped by the master key alone. `pin`: the PIN is bound into the key-encryption key. */
export type KeyProtection = 'server' | 'pin';
/** What the ciphertext holds: a raw secp256k1 key, or BIP-39 entropy from which keys are derived. */
export type KeySecretKind = 'private_key' | 'mnemonic_entropy';

export interface SigningKeyTable {
  id: string;
  owner_type: KeyOwnerType;
  owner_id: string;
  /** Lower-case 0x EVM address of the key (for mnemonics: of m/44'/60'/0'/0/0). */
  address: string;
  secret_kind: KeySecretKind;
  protection: KeyProtection;
  /** base64 salt of the PIN KDF and of the KEK derivation. */
  kdf_salt: string;
  /** base64 iv | ciphertext | tag of the data key under the key-encryption key. */
  wrapped_data_key: string;
  /** base64 iv | ciphertext | tag of the secret under the data key, AAD = owner id | address. */
  encrypted_secret: string;
  /** Wrong PINs in a row; incremented before each attempt, reset on success. */
  pin_failures: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface PartnerTable {
  id: string;
  email: string;
  password_hash: string;
  name: string;
  phone: string;
  service_name: string;
  /** 20 before approval, 1 after; 421 banned, 422 suspended, 423 unsubscribed. */
  status: number;
  mint_limit: number;
  mint_count: Generated<number>;
  /** The month (YYYY-MM in the configured time zone) that mint_count counts. */
  mint_period: string;
  key_id: string;
  main_address: string;
  contract_address: string | null;
  nft_id: number | null;
  /** Bumped by a password change; tokens carry it, so older tokens stop working. */
  token_version: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface UserTable {
  id: string;
  email: string;
  password_hash: string;
  name: string;
  /** E.164. */
  phone: string;
  /** YYYY-MM-DD. */
  birth: string;
  /** 1 active, 422 suspended. */
  status: number;
  key_id: string;
  main_address: string;
  created_at: number;
  updated_at: number;
}

export interface NftContractTable {
  /** The nft_id of the API. */
  id: Generated<number>;
  chain: string;
  /** Lower-case 0x address; null until the deployment is mined. */
  address: string | null;
  partner_id: string;
  name: string;
  symbol: string;
  deploy_outbox_id: string;
  created_at: number;
}

export interface AccountNonceTable {
  chain: string;
  address: string;
  next_nonce: number;
}

export type OutboxStatus = 'signed' | 'sent' | 'mined' | 'failed';

export interface OutboxTransactionTable {
  id: string;
  /** One operation, one row: a repeated call with the same key returns the same transaction. */
  idempotency_key: string;
  chain: string;
  from_address: string;
  nonce: number;
  to_address: string | null;
  value_wei: string;
  data: string;
  gas_limit: string;
  raw_tx: string;
  tx_hash: string;
  status: OutboxStatus;
  /** 'success' or 'reverted' once mined. */
  receipt_status: string | null;
  block_number: number | null;
  block_hash: string | null;
  gas_used: string | null;
  contract_address: string | null;
  error: string | null;
  broadcast_attempts: Generated<number>;
  last_broadcast_ms: number | null;
  created_ms: number;
  updated_ms: number;
}

export interface ServiceSettingTable {
  key: string;
  value: string;
}

export type SigningKeyRow = Selectable<SigningKeyTable>;
export type NewSigningKey = Insertable<SigningKeyTable>;
export type PartnerRow = Selectable<PartnerTable>;
export type PartnerUpdate = Updateable<PartnerTable>;
export type UserRow = Selectable<UserTable>;
export type OutboxRow = Selectable<OutboxTransactionTable>;
export type NftContractRow = Selectable<NftContractTable>;
