import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Row types of every table. Times are Unix epoch seconds unless the column name ends in `_ms`.
 * Amounts of wei and gas are decimal strings: they do not fit a JS number.
 */
export interface Database {
  signing_keys: SigningKeyTable;
  partners: PartnerTable;
  operator_audit: OperatorAuditTable;
  users: UserTable;
  nft_contracts: NftContractTable;
  account_nonces: AccountNonceTable;
  outbox_transactions: OutboxTransactionTable;
  service_settings: ServiceSettingTable;
  sign_in_failures: SignInFailureTable;
  rate_limit_counts: RateLimitCountTable;
  uploaded_files: UploadedFileTable;
  a2a_requests: A2aRequestTable;
  a2a_service_keys: A2aServiceKeyTable;
  a2a_fee_credentials: A2aFeeCredentialTable;
  a2a_blacklist: A2aBlacklistTable;
  a2a_daily_counts: A2aDailyCountTable;
  wallet_sessions: WalletSessionTable;
  indexed_cards: IndexedCardTable;
  indexed_card_transfers: IndexedCardTransferTable;
  indexed_card_holdings: IndexedCardHoldingTable;
  card_index_cursors: CardIndexCursorTable;
  card_index_blocks: CardIndexBlockTable;
  card_designs: CardDesignTable;
  card_mint_batches: CardMintBatchTable;
  card_secure_files: CardSecureFileTable;
  reserved_wallets: ReservedWalletTable;
  person_invites: PersonInviteTable;
  invite_counts: InviteCountTable;
  messenger_messages: MessengerMessageTable;
  escrow_claims: EscrowClaimTable;
  card_claims: CardClaimTable;
  member_transfers: MemberTransferTable;
  partner_idempotency_keys: PartnerIdempotencyKeyTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_messages: WebhookMessageTable;
  webhook_attempts: WebhookAttemptTable;
  webhook_message_subjects: WebhookMessageSubjectTable;
  service_instances: ServiceInstanceTable;
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
  /** Public id of the master key that wraps the data key; null: the store's key before any rotation. */
  master_key_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Left by the last PIN change to tell a repeat of it from a wrong PIN (custody/envelope.ts, pinChangeCheck). */
  pin_change_check: ColumnType<string | null, string | null | undefined, string | null>;
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

export interface OperatorAuditTable {
  id: string;
  at_ms: number;
  /** Who ran the command: WALLET_OPERATOR, or the operating-system user. */
  actor: string;
  /** The command, e.g. `partner set-status`. */
  action: string;
  /** What it acted on, e.g. `partner shop@example.com`. */
  target: string;
  before_json: string | null;
  after_json: string | null;
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
  /** 1 active; 421 banned, 422 suspended, 423 unsubscribed. */
  status: number;
  key_id: string;
  main_address: string;
  created_at: number;
  updated_at: number;
  /** The identity check's connecting information (wallet-app/members/identity.ts); null for members made before it. */
  ci: string | null;
  /** Non-EVM addresses of the member's phrase, recorded when the PIN was last at hand; null until then. */
  bitcoin_address: string | null;
  solana_address: string | null;
  tron_address: string | null;
  xrpl_address: string | null;
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
  /** The contract deployed: `indexed` (CardNFT) or `lean` (LeanCardNFT); fixed once the row exists. */
  kind: ColumnType<CardContractKind, CardContractKind | undefined, never>;
  created_at: number;
}

/** The card contract kinds a partner can be approved with (docs/performance.md has the trade-off). */
export type CardContractKind = 'indexed' | 'lean';

export interface AccountNonceTable {
  chain: string;
  address: string;
  next_nonce: number;
}

/**
 * `signed`: stored (and sent, or to be sent again) until its receipt is stored; then `included`
 * until its block is confirmed (chains with confirmations above 0), then `mined` (outbox/lifecycle.ts).
 */
export type OutboxStatus = 'signed' | 'included' | 'mined' | 'failed';

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

/** A running `serve` process and the master key it runs with (migration 023). */
export interface ServiceInstanceTable {
  id: string;
  host: string;
  pid: number;
  master_key_id: string;
  started_at_ms: number;
  seen_at_ms: number;
}

/** App2App request states of the API (see docs/app2app.md). */
export type A2aRequestStatus = 'prepared' | 'requested' | 'completed' | 'canceled' | 'error';

export interface A2aRequestTable {
  /** 128 random bits, 8-4-4-4-12 hex. */
  request_key: string;
  type: string;
  chain: string;
  status: A2aRequestStatus;
  bapp_name: string;
  /** JSON `{ success?, fail? }` or null. */
  bapp_callback: string | null;
  /** JSON of the validated action: exactly what approval executes. */
  action: string;
  estimated_gas: string | null;
  service_key_id: string | null;
  fee_credential_id: string | null;
  /** The member who opened or approved the request. */
  user_id: string | null;
  /** Set by the one approval that won the claim; executions are never run twice. */
  execution_id: string | null;
  /** JSON of the result of a completed request. */
  result: string | null;
  error_code: number | null;
  error_message: string | null;
  /** Bumped at every state change; long-polls compare it. */
  version: Generated<number>;
  expiration_time: number;
  /** When it reached completed, canceled or error; results stay readable for a retention period after. */
  finished_at: number | null;
  /** Coins the fee payer advanced to the member before a fee-delegated transaction. */
  fee_advance_wei: string | null;
  /** When the fee payer settled the fee of a fee-delegated transaction. */
  fee_settled_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface A2aServiceKeyTable {
  id: string;
  name: string;
  /** SHA-256 hex of the service key; the key itself is never stored. */
  lookup_hash: string;
  /** hex HMAC key of ci_hash, derived from the service key (docs/app2app.md). */
  ci_key: string;
  created_at: number;
  revoked_at: number | null;
}

export interface A2aFeeCredentialTable {
  id: string;
  chain: string;
  /** SHA-256 hex of the credential; the credential itself is never stored. */
  lookup_hash: string;
  /** Server-protected signing key of the fee payer. */
  key_id: string;
  payer_address: string;
  created_at: number;
  revoked_at: number | null;
}

export interface A2aBlacklistTable {
  /** Lower-case 0x address. */
  address: string;
  reason: string | null;
  created_at: number;
}

export interface A2aDailyCountTable {
  user_id: string;
  kind: string;
  /** YYYY-MM-DD in the configured time zone. */
  day: string;
  count: number;
}

export interface WalletSessionTable {
  id: string;
  /** SHA-256 hex of the bearer token. */
  token_hash: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  /** The browser's User-Agent at sign-in, for the session list. */
  user_agent: string | null;
}

/** Wrong passwords counted per account or per client address (Family A sign-in back-off). */
/** Requests of one rate limit and client address in the current window (http/rate-limit/limits.ts). */
export interface RateLimitCountTable {
  /** `<limit>:<client address>`. */
  key: string;
  hits: number;
  window_start_ms: number;
}

export interface SignInFailureTable {
  /** `address:<client address>`, `pair:<client address>|<login>` (blocking) or `account:<account id>` (slowing only). */
  scope: string;
  /** Wrong passwords since the count last started (it restarts when the last one is older than the window). */
  failures: number;
  last_failure_ms: number;
  /** Attempts are refused (4008) before this time; 0 when not blocked. */
  blocked_until_ms: number;
}

export type UploadVisibility = 'public' | 'secure';
export type UploadKind = 'image' | 'video';

/** A file accepted by A4, A5 or A6. The bytes live in the file storage under storage_key. */
export interface UploadedFileTable {
  /** `<uuid>.<ext>`: what URLs and the A6 answer name. */
  name: string;
  /** `public/<name>` or `secure/<name>`. */
  storage_key: string;
  visibility: UploadVisibility;
  /** The partner that uploaded it. */
  partner_id: string;
  kind: UploadKind;
  /** From the sniffed bytes, never from the client. */
  content_type: string;
  size_bytes: number;
  width: number;
  height: number;
  created_at: number;
}

/**
 * A card (ERC-721 token) as the chain's Transfer logs say (src/card-index). Addresses are
 * lower-case 0x; `updated_block`/`updated_log_index` is the position of the last log applied.
 */
export interface IndexedCardTable {
  chain: string;
  contract: string;
  token_id: number;
  /** Zero address once burned. */
  owner: string;
  /** The previous owner; the zero address for a card that was never transferred. */
  sender: string;
  /** Null only when the mint lies before the block the contract was followed from. */
  mint_tx_hash: string | null;
  last_tx_hash: string;
  minted_at: number | null;
  minted_block: number | null;
  updated_at: number;
  updated_block: number;
  updated_log_index: number;
  /** 1 once burned (kept so a card id is never reused silently), else 0. */
  burned: number;
}

/** Journal of applied Transfer logs: a rewind re-derives cards from what remains of it. */
export interface IndexedCardTransferTable {
  chain: string;
  block_number: number;
  log_index: number;
  contract: string;
  token_id: number;
  from_address: string;
  to_address: string;
  tx_hash: string;
  /** Epoch seconds of the block. */
  block_time: number;
}

/** Unburned cards per (owner, contract), kept with the cards so grouping by contract is a keyset read. */
export interface IndexedCardHoldingTable {
  chain: string;
  owner: string;
  contract: string;
  card_count: number;
}

/** How far the card indexer has applied the logs of one contract. */
export interface CardIndexCursorTable {
  chain: string;
  contract: string;
  /** Last block whose logs are applied; -1 before the first. */
  last_block: number;
  /** Hash of last_block when it was applied; null for a start position nothing was applied at. */
  last_block_hash: string | null;
  updated_ms: number;
}

/** Hashes of recently applied blocks, to find where the chain forked away from the index. */
export interface CardIndexBlockTable {
  chain: string;
  block_number: number;
  block_hash: string;
}

/** What one mint (A7, A8) gave its cards: the metadata every card of it serves. */
export interface CardDesignTable {
  id: string;
  partner_id: string;
  chain: string;
  /** Lower-case 0x address of the card contract. */
  contract: string;
  nft_id: number;
  name: string;
  /** JSON of the public metadata (docs/partner-api.md, Card metadata); never holds `secure`. */
  metadata: string;
  /** JSON of the `secure` object, shown only to a card's holder; null when none. */
  secure: string | null;
  /** 1 when holders may send the cards on. */
  sendable: number;
  created_at: number;
  /** The partner's Idempotency-Key of the call that made this mint, if it sent one (unique per partner). */
  idempotency_key: ColumnType<string | null, string | null | undefined, string | null>;
}

/**
 * `reserved`: counted against mint_limit, not yet signed. `submitted`: in the outbox.
 * `minted`: mined, first_token_id known. `failed`: reverted or never signed; no longer counted.
 */
export type CardMintBatchStatus = 'reserved' | 'submitted' | 'minted' | 'failed';

/** One mintBatch transaction of a design. Its cards are first_token_id .. first_token_id + card_count - 1. */
export interface CardMintBatchTable {
  /** Also the outbox idempotency key (`mint:<id>`). */
  id: string;
  design_id: string;
  partner_id: string;
  chain: string;
  contract: string;
  /** Position of the batch within its design (0, 1, ...). */
  sequence: number;
  /** JSON array of lower-case recipient addresses, in token id order. */
  recipients: string;
  card_count: number;
  /** The month (YYYY-MM, configured time zone) whose mint_count the batch counts in. */
  period: string;
  status: CardMintBatchStatus;
  outbox_id: string | null;
  tx_hash: string | null;
  first_token_id: number | null;
  error: string | null;
  created_at: number;
  updated_at: number;
}

/** A secure (A6) file named by a design's `secure` object. */
export interface CardSecureFileTable {
  design_id: string;
  file_name: string;
}

/** A custodial wallet kept for a person (name and phone) who is not a member yet (src/people). */
export interface ReservedWalletTable {
  id: string;
  /** Trimmed, inner whitespace collapsed to one space. */
  name: string;
  /** E.164. */
  phone: string;
  /** Server-protected until the person signs up; then the member's PIN key (owner id stays this id). */
  key_id: string;
  /** Lower-case 0x address of the key. */
  address: string;
  created_at: number;
  /** The member who signed up with this name and phone and owns the wallet since. */
  claimed_user_id: string | null;
  claimed_at: number | null;
}

/** A partner's invite of a person; one per (partner, person). Released invites are deleted. */
export interface PersonInviteTable {
  id: string;
  partner_id: string;
  /** E.164. */
  phone: string;
  name: string;
  reserved_wallet_id: string | null;
  created_at: number;
  /** When the message went to the messenger; null while the invite waits for its card. */
  sent_at: number | null;
  /** JSON array of the invite counters this invite was charged to; null until its quota is taken. */
  quota_charges: string | null;
  /** When the person signed up and took the reserved wallet. */
  used_at: number | null;
}

/** Invites counted against the limits: per partner and day, per receiving phone and day or month. */
export interface InviteCountTable {
  /** `sender_day` (subject: partner id), `receiver_day` or `receiver_month` (subject: E.164 phone). */
  kind: string;
  subject: string;
  /** YYYY-MM-DD or YYYY-MM in the configured time zone. */
  period: string;
  count: number;
}

/** A message written by the default (outbox) messenger. */
export interface MessengerMessageTable {
  id: string;
  kind: string;
  to_name: string;
  /** E.164. */
  to_phone: string;
  text: string;
  created_at: number;
}

export type CardDesignRow = Selectable<CardDesignTable>;
export type CardMintBatchRow = Selectable<CardMintBatchTable>;
export type SigningKeyRow = Selectable<SigningKeyTable>;
export type NewSigningKey = Insertable<SigningKeyTable>;
export type PartnerRow = Selectable<PartnerTable>;
export type PartnerUpdate = Updateable<PartnerTable>;
export type UserRow = Selectable<UserTable>;
export type ReservedWalletRow = Selectable<ReservedWalletTable>;
export type PersonInviteRow = Selectable<PersonInviteTable>;
export type OutboxRow = Selectable<OutboxTransactionTable>;
/** A card put into escrow by A17, behind the claim link `{web_url}/claim/<id>#<secret>`. */
export interface EscrowClaimTable {
  /** The claim link's id (base64url, 22 characters). */
  id: string;
  chain: string;
  /** Lower-case address of the escrow contract holding the card. */
  escrow_address: string;
  nft_id: number;
  /** Lower-case address of the card contract. */
  contract: string;
  token_id: number;
  partner_id: string;
  /** Lower-case address that deposited the card (the partner's). */
  depositor: string;
  /** keccak256 of the 32-byte secret, 0x hex: what the escrow contract checks. */
  claim_hash: string;
  /** Idempotency key of the deposit transaction in the outbox. */
  deposit_key: string;
  /** The member who claimed it first; null while unclaimed. */
  claimed_by: string | null;
  /** Lower-case address the card was claimed to. */
  claimed_to: string | null;
  /** The current attempt at the claim transaction, 0 for the first (see claimKey in escrow/claims.ts). */
  claim_attempt: Generated<number>;
  /** The claim secret sealed under `secret_master_key_id`, for a deposit under an Idempotency-Key only, wiped after 24 h. */
  sealed_secret: string | null;
  secret_master_key_id: string | null;
  created_ms: number;
  updated_ms: number;
}

export type EscrowClaimRow = Selectable<EscrowClaimTable>;

/** Coins or tokens a member sent from the wallet app, or test coins sent to her (migration 024). */
export interface MemberTransferTable {
  id: string;
  user_id: string;
  /** The key the member's app sent: one send per (user_id, idempotency_key). */
  idempotency_key: string;
  /** SHA-256 of what was asked (chain, token, recipient, amount): a key used again for another send is refused (4090). */
  request_hash: string;
  kind: 'coin' | 'token' | 'faucet';
  chain: string;
  /** Lower-case ERC-20 contract; null for the chain's coin. */
  token: string | null;
  /** Lower-case recipient. */
  to_address: string;
  /** Smallest units (wei for coins), decimal. */
  units: string;
  /** The outbox idempotency key of the transaction. */
  outbox_key: string;
  created_ms: number;
}

export type MemberTransferRow = Selectable<MemberTransferTable>;

/** A card an operation holds until its transaction is final (cards/claims). */
export interface CardClaimTable {
  chain: string;
  /** Lower-case address of the card contract. */
  contract: string;
  /** Decimal: any uint256 token id. */
  card_id: string;
  /** The outbox idempotency key of the transaction the claim guards. */
  operation: string;
  taken_ms: number;
}
export type NftContractRow = Selectable<NftContractTable>;
export type A2aRequestRow = Selectable<A2aRequestTable>;
export type WalletSessionRow = Selectable<WalletSessionTable>;
export type UploadedFileRow = Selectable<UploadedFileTable>;
export type IndexedCardRow = Selectable<IndexedCardTable>;

/** A partner API call made under an Idempotency-Key (partner-api/idempotency). */
export interface PartnerIdempotencyKeyTable {
  partner_id: string;
  idempotency_key: string;
  /** SHA-256 hex of the route, its path and query values and its body: a retry must match it. */
  fingerprint: string;
  /** `running` while a call holds the key, `done` once its answer is stored. */
  state: 'running' | 'done';
  /** Random id of the call that holds the key; only it renews the lease or stores the answer. */
  holder: string;
  /** While a running call is alive it keeps pushing this on; past it, a retry takes the key over. */
  lease_until_ms: number;
  response_status: number | null;
  response_type: string | null;
  response_body: string | null;
  created_at_ms: number;
}
export type PartnerIdempotencyKeyRow = Selectable<PartnerIdempotencyKeyTable>;

/** A partner's webhook endpoint (webhooks/). */
export interface WebhookEndpointTable {
  id: string;
  partner_id: string;
  url: string;
  /** JSON array of the event types it receives. */
  events: string;
  /**
   * The HMAC key of its signatures (`whsec_<base64>`, shown to the partner once), sealed under the
   * master key `secret_master_key_id` (webhooks/secrets.ts); in clear only in a row from before
   * migration 018, until the next start seals it.
   */
  secret: string;
  /** The secret before the last rotation, sealed the same way: still signed with until previous_secret_until_ms. */
  previous_secret: string | null;
  previous_secret_until_ms: number | null;
  /** The master key both secrets are sealed under; null: in clear. */
  secret_master_key_id: string | null;
  created_at_ms: number;
  /** Set when the partner deleted it: no new messages, pending ones are given up. */
  deleted_at_ms: number | null;
}
export type WebhookEndpointRow = Selectable<WebhookEndpointTable>;

/** `held`: waiting for the transaction named by outbox_key to be mined (then pending) or to fail (then deleted). */
export type WebhookMessageStatus = 'held' | 'pending' | 'delivered' | 'failed';

/** One event for one endpoint, in the durable delivery queue. */
export interface WebhookMessageTable {
  /** `msg_…`, sorting in the order messages were made; the `webhook-id` of every attempt. */
  id: string;
  endpoint_id: string;
  partner_id: string;
  event_type: string;
  /** The JSON body sent, byte for byte the same on every attempt. */
  payload: string;
  status: WebhookMessageStatus;
  attempts: number;
  next_attempt_ms: number;
  /** The worker delivering it now; others leave it alone until lease_until_ms. */
  lease_holder: string | null;
  lease_until_ms: number;
  created_at_ms: number;
  delivered_at_ms: number | null;
  /** Set for events that could be reported twice: unique per endpoint. */
  event_key: string | null;
  /** The outbox idempotency key of the transaction a held message waits for. */
  outbox_key: string | null;
  /** When its first attempt failed: from then on it holds the endpoint's later messages only `webhooks.holdLaterMessagesMs`. */
  first_failed_at_ms: number | null;
}
export type WebhookMessageRow = Selectable<WebhookMessageTable>;

/** What a message is about (`card:<chain>:<contract>:<card id>`, `invite:<id>`): messages of one subject are delivered in order. */
export interface WebhookMessageSubjectTable {
  message_id: string;
  endpoint_id: string;
  subject: string;
}

/** One delivery attempt: the delivery log. */
export interface WebhookAttemptTable {
  id: string;
  message_id: string;
  endpoint_id: string;
  at_ms: number;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
}
export type WebhookAttemptRow = Selectable<WebhookAttemptTable>;
