import { call, hashSecret } from './api.ts';
import type { SignedIn } from './api-types.ts';

/** The member's account: sign-up, home (addresses, balances, test coins), PIN and sessions. */
const API = '/v2/wallet-app';

export interface SignUpForm {
  name: string;
  phone: string;
  email: string;
  password: string;
  birth: string;
  pin: string;
}

export interface ChainAccount {
  chain: string;
  chain_id: number;
  address: string;
  balance: string | null;
  coins: string | null;
  faucet: boolean;
}

export interface HomeView {
  chains: ChainAccount[];
  other_chains: { bitcoin: string; solana: string; tron: string; xrpl: string } | null;
}

export interface PinState {
  failures: number;
  max_failures: number;
  locked: boolean;
}

export interface SessionView {
  id: string;
  created_at: number;
  expires_at: number;
  user_agent: string | null;
  current: boolean;
}

export const accountApi = {
  /** Sign-up; the service signs the new member in (the session cookie). */
  signUp: (form: SignUpForm) => call<SignedIn>('POST', `${API}/members`, { ...form, password: hashSecret(form.password), pin: hashSecret(form.pin) }),
  home: () => call<HomeView>('GET', `${API}/home`),
  revealOtherChains: (pin: string) => call<HomeView>('POST', `${API}/home/other-chains`, { pin: hashSecret(pin) }),
  faucet: (chain: string) => call<{ chain: string; transaction_hash: string; coins: string; balance: string }>('POST', `${API}/faucet`, { chain }),
  pinState: () => call<PinState>('GET', `${API}/me/pin`),
  changePin: (oldPin: string, newPin: string) => call('PUT', `${API}/me/pin`, { old_pin: hashSecret(oldPin), new_pin: hashSecret(newPin) }),
  sessions: () => call<{ sessions: SessionView[] }>('GET', `${API}/sessions`),
  signOutSession: (id: string) => call('DELETE', `${API}/sessions/${encodeURIComponent(id)}`),
  signOutEverywhere: () => call<{ signed_out: number }>('DELETE', `${API}/sessions`),
};
