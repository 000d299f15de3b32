import { ApiError } from './api.ts';

/** What the member reads for an error the service answered (codes: docs/errors.md). */
const BY_CODE: Record<number, string> = {
  402: 'Your session has ended. Sign in again.',
  403: 'Signing is locked after five wrong PINs in a row. Ask the wallet operator to unlock your account.',
  406: 'No member has this e-mail address.',
  422: 'This account is suspended.',
  4003: 'Sign in first.',
  4004: 'The password is wrong.',
  4006: 'The PIN is wrong. Nothing was signed or sent; you can try again.',
  4204: 'The sender took this card back: it can no longer be claimed.',
  4205: 'Someone else already claimed this card.',
  4206: 'This claim link is not valid. Open the whole link you were sent.',
  6000: 'This request does not exist, or it was finished long ago.',
  6001: 'This request has expired. Go back to the app and start again.',
  6011: 'This request is already finished or being carried out.',
};

export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 4008) {
      return 'Too many attempts. Wait a little, then try again.';
    }
    const known = BY_CODE[error.code];
    const detail = error.detail ? ` (${error.detail})` : '';
    return known ? known : `Error ${error.code}: ${error.err}${detail}`;
  }
  return `The wallet service cannot be reached: ${error instanceof Error ? error.message : String(error)}`;
}
