import { ApiError } from './api.ts';

/** The PIN lockout (403) in words, with the way out. */
export const PIN_LOCKED =
  'Your PIN is locked after five wrong PINs in a row: nothing can be signed or sent until it is unlocked. Ask the operator of this wallet service to unlock it (the command is wallet-service user unlock --email <your e-mail>), then use your PIN again.';

/** What the member reads for an error the service answered (codes: docs/errors.md). */
const BY_CODE: Record<number, string> = {
  402: 'Your session has ended. Sign in again.',
  403: PIN_LOCKED,
  410: 'The birth date is not valid: not a real date, or in the future.',
  411: 'You must be 19 or older to open a wallet.',
  412: 'A member with this name and phone number already exists. Sign in instead.',
  413: 'This e-mail address is already used by a member.',
  414: 'A card is being sent to you right now. Wait a minute, then try again.',
  430: 'Your identity is already registered to another member.',
  431: 'Your identity check does not match the previous one. Contact the wallet operator.',
  432: 'Your identity could not be checked. Try again later.',
  433: 'The legal name does not match your identity check.',
  434: 'The phone number does not match your identity check.',
  435: 'The identity check gave no result. Try again later.',
  4007: 'The new PIN is the same as the current one.',
  4009: 'The request was refused because it did not come from the wallet app. Reload the page.',
  406: 'No member has this e-mail address.',
  4010: 'This PIN is too easy to guess. Choose one that is not a pattern or a date.',
  4011: 'This password is too easy to guess.',
  422: 'This account is suspended.',
  4003: 'Sign in first.',
  4004: 'The e-mail or the password is wrong.',
  4006: 'The PIN is wrong. Nothing was signed or sent; you can try again.',
  4204: 'The sender took this card back: it can no longer be claimed.',
  4205: 'Someone else already claimed this card.',
  4206: 'This claim link is not valid. Open the whole link you were sent.',
  4207: 'Its app made this card not sendable.',
  4208: 'This card can only be sent to a friend, which is not available.',
  503: 'The blockchain cannot be reached right now. Nothing was signed or sent: try again in a minute.',
  6500: 'This address is blocked by the wallet operator.',
  6000: 'This request does not exist, or it was finished long ago.',
  6001: 'This request has expired. Go back to the app and start again.',
  6011: 'This request is already finished or being carried out.',
};

export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 429) return `Not so fast: try again ${error.detail ? `later (${error.detail})` : 'later'}.`;
    if (error.code === 4008) {
      return 'Too many attempts. Wait a little, then try again.';
    }
    // The secret rule says what is wrong (accounts/secret-strength.ts on the service).
    if ((error.code === 4010 || error.code === 4011) && error.detail) return `${sentence(error.detail)}.`;
    const known = BY_CODE[error.code];
    const detail = error.detail ? ` (${error.detail})` : '';
    return known ? known : `Error ${error.code}: ${error.err}${detail}`;
  }
  return `The wallet service cannot be reached: ${error instanceof Error ? error.message : String(error)}`;
}

/** The field a refusal is about, to show it under that field: a PIN or a password too easy to guess. */
export function fieldOfError(error: unknown): 'pin' | 'password' | undefined {
  if (!(error instanceof ApiError)) return undefined;
  return error.code === 4010 ? 'pin' : error.code === 4011 ? 'password' : undefined;
}

function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
