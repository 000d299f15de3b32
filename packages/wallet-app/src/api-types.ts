/** The shapes the wallet-app API answers with (docs/app2app.md, "The wallet-app API"). */

export interface Member {
  email: string;
  name: string;
  main_address: string;
  status: number;
}

export interface SignedIn {
  /** Only for API clients; the app's session is the cookie. */
  session_token?: string;
  expires_at: number;
  member: Member;
}

export type RequestType =
  | 'auth'
  | 'send_coin'
  | 'send_token'
  | 'send_card'
  | 'execute_contract'
  | 'sign_message'
  | 'sign_message_eip191'
  | 'sign_typedData_v4';

export type RequestStatus = 'prepared' | 'requested' | 'completed' | 'canceled' | 'error';

export interface TypedData {
  types: Record<string, Array<{ name: string; type: string }>>;
  primaryType: string;
  domain: Record<string, unknown>;
  message: Record<string, unknown>;
}

/** What approval will do, fixed at prepare. */
export interface RequestView {
  request_key: string;
  type: RequestType;
  chain: string;
  status: RequestStatus;
  expiration_time: number;
  bapp: { name: string; callback: { success?: string; fail?: string } | null; impersonates_operator?: boolean };
  summary: string;
  /** The address the BApp asked to act from, or null when any member may approve. */
  from: string | null;
  fee_delegated: boolean;
  estimated_gas: number | null;
  /** Wei (decimal) the member would pay: estimated gas times the gas price when the screen opened. */
  estimated_fee?: string | null;
  /** send_token: the token contract's own symbol and decimals. */
  token?: { symbol: string | null; decimals: number };
  transaction?: {
    from: string | null;
    to: string;
    amount?: string;
    contract?: string;
    native_coin?: boolean;
    decimals?: number;
    card_id?: string;
    value: string;
    function?: string | null;
    params?: unknown[] | null;
    /** The JSON ABI items of an execute_contract given as abi + params. */
    abi?: unknown[];
    data: string;
  };
  message?: { from: string | null; value: string; is_hex_encoded: boolean; text: string | null };
  typed_data?: TypedData;
}

/** The B3 answer of a request. */
export interface RequestOutcome {
  request_key: string;
  expiration_time: number;
  status: RequestStatus;
  result?: Record<string, string>;
  error?: { code: number; err: string; message?: string };
}

export interface ClaimView {
  claim_id: string;
  chain: string;
  nft_id: number;
  card_id: number;
  contract_address: string;
  card_uri: string;
  name: string;
  partner: string;
  status: 'in_escrow' | 'claimed' | 'not_in_escrow';
  claimed_to: string | null;
  tx_hash?: string;
}

export interface CardPage {
  name: string;
  next_cursor: string;
  cards: Array<{ card_id: number; card_uri: string; owner: string }>;
}

export interface CardMetadata {
  name?: string;
  description?: string;
  image?: string;
  background_color?: string;
}

/** A card of the member's lists (`GET /v2/wallet-app/cards`). */
export interface MemberCard {
  card_id: number;
  card_uri: string;
  created_at: number;
  updated_at: number;
  transaction_hash: string;
  name: string;
  image: string;
  animation_url?: string;
  background_color?: string;
  layout: string;
  sendable: boolean;
  send_friend_only: boolean;
}

/** One BApp of the member's cards, as A12 groups them. */
export interface MemberBapp {
  id: number;
  name: string;
  bapp_img: string;
  summary: string;
  nft_order_no: number;
  card_count: number;
  nft_id: number;
  cards: MemberCard[];
  cards_next_cursor: string;
}

export interface MemberBappList {
  bapps: MemberBapp[];
  next_cursor: string;
}

export interface MemberBappCards {
  name: string;
  symbol_img: string;
  cards: MemberCard[];
  next_cursor: string;
}

export interface Attribute {
  trait_type: string;
  value: string;
}

/** A secure image or video: the file names of the secure upload (one is shown). */
export interface SecureFile {
  low_resolution?: string;
  high_resolution?: string;
}

/** The holder's view of a card (`GET /v2/wallet-app/cards/:nft_id/:card_id`). */
export interface HeldCard {
  nft_id: number;
  card_id: number;
  card_uri: string;
  transaction_hash: string;
  metadata: CardMetadata & {
    name: string;
    description: string;
    image: string;
    animation_url?: string;
    attributes?: Attribute[];
    layout?: string;
    hashtags?: string[];
    external_link?: string;
    external_url?: string;
    custom_links?: Array<{ display_name: string; value: string }>;
    qr_code?: string;
    bar_code?: string;
    status_url?: string;
    sendable?: boolean;
    send_friend_only?: boolean;
  };
  secure: { qr_code?: string; bar_code?: string; attributes?: Attribute[]; images?: SecureFile[]; animations?: SecureFile[] } | null;
  status?: { valid: boolean; attributes?: Attribute[] };
  status_error?: string;
}

export interface ActivityRequest {
  request_key: string;
  type: RequestType;
  chain: string;
  status: RequestStatus;
  bapp_name: string;
  summary: string;
  created_at: number;
  finished_at: number | null;
  tx_hash?: string;
  error?: { code: number; message: string };
}

export interface ActivityCardTransfer {
  chain: string;
  contract: string;
  nft_id: number | null;
  card_id: number;
  card_name: string | null;
  direction: 'sent' | 'received';
  counterparty: string;
  tx_hash: string;
  state: 'pending' | 'mined' | 'failed';
  time: number;
}

export interface Activity {
  requests: ActivityRequest[];
  card_transfers: ActivityCardTransfer[];
}
