/** The shapes the wallet-app API answers with (docs/app2app.md, "The wallet-app API"). */

export interface Member {
  email: string;
  name: string;
  main_address: string;
  status: number;
}

export interface SignedIn {
  session_token: string;
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
  bapp: { name: string; callback: { success?: string; fail?: string } | null };
  summary: string;
  /** The address the BApp asked to act from, or null when any member may approve. */
  from: string | null;
  fee_delegated: boolean;
  estimated_gas: number | null;
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
