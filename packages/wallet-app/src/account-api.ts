import { call, hashSecret } from './api.ts';
import type { FaucetAnswer, HomeView, PinState, SessionView, SignedIn, SignedOutEverywhere, SignUpBody } from './wire.ts';

/** The member's account: sign-up, home (addresses, balances, test coins), PIN and sessions. */
const API = '/v2/wallet-app';

/** The sign-up form as the member fills it: the password and PIN in clear, hashed before they are sent. */
export type SignUpForm = SignUpBody;

export const accountApi = {
  /** Sign-up; the service signs the new member in (the session cookie). */
  signUp: (form: SignUpForm) => call<SignedIn>('POST', `${API}/members`, { ...form, password: hashSecret(form.password), pin: hashSecret(form.pin) }),
  home: () => call<HomeView>('GET', `${API}/home`),
  revealOtherChains: (pin: string) => call<HomeView>('POST', `${API}/home/other-chains`, { pin: hashSecret(pin) }),
  faucet: (chain: string) => call<FaucetAnswer>('POST', `${API}/faucet`, { chain }),
  pinState: () => call<PinState>('GET', `${API}/me/pin`),
  changePin: (oldPin: string, newPin: string) => call('PUT', `${API}/me/pin`, { old_pin: hashSecret(oldPin), new_pin: hashSecret(newPin) }),
  sessions: () => call<{ sessions: SessionView[] }>('GET', `${API}/sessions`),
  signOutSession: (id: string) => call('DELETE', `${API}/sessions/${encodeURIComponent(id)}`),
  signOutEverywhere: () => call<SignedOutEverywhere>('DELETE', `${API}/sessions`),
};
