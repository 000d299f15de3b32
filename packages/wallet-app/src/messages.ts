import { ApiError, NetworkError } from './api.ts';

/** The PIN lockout (403) in words, with the way out. */
export const PIN_LOCKED =
  'Your PIN is locked after five wrong PINs in a row: nothing can be signed or sent until it is unlocked. Ask the operator of this wallet service to unlock it (the command is wallet-service user unlock --email <your e-mail>), then use your PIN again.';

/** Offline, or the service is down: the app's notice above every screen, with Retry beside it. */
export const UNREACHABLE = 'You seem to be offline, or the wallet service cannot be reached. Check your connection, then retry.';
/** The same, where a screen or form failed: what it means for what the member did. */
const NOT_REACHED = 'The wallet service was not reached, so nothing was sent or changed. Retry once you are back online.';

/** Codes only a partner's or a BApp's own calls receive: the app never sends those calls. */
const NOT_FOR_THIS_APP = 'The wallet service refused this as a call this app does not make. Reload the page and try again; if it happens again, tell the operator of this wallet service.';
/** A BApp asked for something malformed: only the BApp can fix it. */
const ASK_THE_APP = 'The app that sent this request made it wrongly, so it cannot be carried out. Nothing was signed or sent. Go back to that app and start again, or tell its makers.';
const CONTACT_OPERATOR = 'Contact the operator of this wallet service.';

/**
 * Every code of the service's error registry (docs/errors.md) in words, with what to do next. A
 * test on the service checks this table holds exactly the registry's codes.
 */
export const ERROR_MESSAGES: Record<number, string> = {
  // Shared
  400: 'Something you entered was not accepted. Check the form and try again.',
  404: 'This was not found: it does not exist, or it is not yours. Go back to your wallet.',
  500: 'The wallet service ran into a problem of its own. Nothing was changed: try again in a minute.',
  501: 'A message could not be sent. Try again later.',
  503: 'The blockchain or the wallet service cannot be reached right now. Nothing was signed or sent: try again in a minute.',
  429: 'Not so fast: too many tries in a short time. Wait a minute, then try again.',
  // Accounts and sign-in
  410: 'The birth date is not valid: not a real date, or in the future.',
  411: 'You must be 19 or older to open a wallet.',
  412: 'A member with this name and phone number already exists. Sign in instead.',
  413: 'This e-mail address is already used by a member. Sign in instead, or use another address.',
  414: 'A card is being sent to you right now. Wait a minute, then try again.',
  403: PIN_LOCKED,
  420: `This account needs a new PIN before it can be used. ${CONTACT_OPERATOR}`,
  421: `This account is banned and cannot sign in. ${CONTACT_OPERATOR}`,
  422: `This account is suspended. ${CONTACT_OPERATOR}`,
  423: 'This account was closed. Create a new wallet to use the service again.',
  424: `This account is in an unknown state. ${CONTACT_OPERATOR}`,
  425: 'This account is not approved yet. Try again once it is.',
  402: 'Your session has ended. Sign in again.',
  406: 'No member has this e-mail address. Check it, or create a wallet.',
  4001: NOT_FOR_THIS_APP,
  4002: NOT_FOR_THIS_APP,
  4003: 'Sign in first.',
  4004: 'The e-mail or the password is wrong.',
  4005: NOT_FOR_THIS_APP,
  4006: 'The PIN is wrong. Nothing was signed or sent; you can try again.',
  4007: 'The new PIN is the same as the current one. Choose another.',
  4044: NOT_FOR_THIS_APP,
  4008: 'Too many wrong passwords. Wait a little, then try again.',
  4009: 'The request was refused because it did not come from the wallet app. Reload the page and try again.',
  440: 'This is no longer active.',
  // The identity check of sign-up
  405: NOT_FOR_THIS_APP,
  430: `Your identity is already registered to another member: sign in with that account. ${CONTACT_OPERATOR}`,
  431: `Your identity check does not match the previous one. ${CONTACT_OPERATOR}`,
  432: 'Your identity could not be checked. Try again later.',
  433: 'The legal name does not match your identity check. Enter your name as on your identity papers.',
  434: 'The phone number does not match your identity check. Enter your own phone number, with its country.',
  435: 'The identity check gave no result. Try again later.',
  5002: NOT_FOR_THIS_APP,
  5003: 'A service the wallet relies on is not answering. Try again later.',
  // Limits
  4070: 'You reached today\'s limit of transfers. Try again tomorrow.',
  4071: 'This amount is over the limit for one transfer. Send less.',
  4072: 'This amount has too many decimal places. Round it and try again.',
  4080: NOT_FOR_THIS_APP,
  4100: NOT_FOR_THIS_APP,
  4101: NOT_FOR_THIS_APP,
  4111: 'This person already has a wallet. Send to their address instead.',
  4112: 'You reached today\'s limit of invitations. Try again tomorrow.',
  4113: 'This person was already invited. Wait for them to sign up.',
  4114: 'This person received too many cards today. Try again tomorrow.',
  4115: 'This person received too many cards this month. Try again next month.',
  // Cards and escrow
  4201: 'The sender no longer holds this card. Nothing was sent.',
  4202: 'There are not enough coins to pay the fee. Add coins to the wallet, then try again.',
  4203: NOT_FOR_THIS_APP,
  4204: 'The sender took this card back: it can no longer be claimed.',
  4205: 'Someone else already claimed this card.',
  4206: 'This claim link is not valid. Open the whole link you were sent.',
  4207: 'Its app made this card not sendable. It stays in your wallet.',
  4208: 'This card can only be sent to a friend, which is not available. It stays in your wallet.',
  4700: 'The transaction has no receipt yet. Look again in a minute.',
  4090: NOT_FOR_THIS_APP,
  4209: 'This card is being sent or claimed right now (in another tab or device?). Nothing was signed: wait a moment, then look at your cards.',
  4130: 'What was sent is too large. Send less at a time.',
  4010: 'This PIN is too easy to guess. Choose one that is not a pattern or a date.',
  4011: 'This password is too easy to guess. Choose a longer one that is not common.',
  // App2App requests
  6000: 'This request does not exist, or it was finished long ago. Go back to the app and start again.',
  6001: 'This request has expired. Go back to the app and start again.',
  6010: ASK_THE_APP,
  6011: 'This request is already finished or being carried out. Nothing more is needed here.',
  6200: 'Today\'s limit of contract calls is reached. Try again tomorrow.',
  6401: ASK_THE_APP,
  6402: ASK_THE_APP,
  6403: ASK_THE_APP,
  6404: ASK_THE_APP,
  6405: ASK_THE_APP,
  6406: ASK_THE_APP,
  6407: ASK_THE_APP,
  6408: ASK_THE_APP,
  6409: ASK_THE_APP,
  6410: ASK_THE_APP,
  6411: 'This request is for another wallet\'s address, not yours. Nothing was signed or sent.',
  6412: 'There are not enough coins or tokens for this, with its fee. Add some to your wallet, then try again.',
  6414: 'The contract refused this transaction, so nothing changed. Go back to the app to see why.',
  6416: ASK_THE_APP,
  6417: 'This is not available on this chain.',
  6418: ASK_THE_APP,
  6500: 'This address is blocked by the operator of this wallet service. Nothing was sent.',
  6501: `Your account cannot do this in its present state. ${CONTACT_OPERATOR}`,
};

/** The words for a refusal of the service, or for not reaching it. */
export function describeError(error: unknown): string {
  if (error instanceof NetworkError) return NOT_REACHED;
  if (error instanceof ApiError) return describeCode(error.code, error.detail, error.status);
  return `Something went wrong in this page (${error instanceof Error ? error.message : String(error)}). Reload the page and try again.`;
}

/** A registry code (an API refusal, or a request's error) in words; `detail` is the service's own. */
export function describeCode(code: number, detail?: string, status?: number): string {
  // The secret rule says what is wrong (accounts/secret-strength.ts on the service).
  if ((code === 4010 || code === 4011) && detail) return `${sentence(detail)}.`;
  if (code === 400 && detail && /\bphone\b/.test(detail)) return 'This phone number is not valid for the country chosen. Check the number and the country.';
  if (code === 400 && detail) return `Something you entered was not accepted: ${detail}. Check it and try again.`;
  if (code === 6414 && detail) return `The contract refused this transaction (${detail}), so nothing changed.`;
  const known = ERROR_MESSAGES[code];
  if (known) return known;
  // A code the registry does not have yet, or an answer from something in front of the service.
  if (status !== undefined && status >= 500) return ERROR_MESSAGES[500]!;
  return `The wallet service refused this (code ${code}). Reload the page and try again; if it happens again, tell the operator of this wallet service.`;
}

/** The field a refusal is about, to show it under that field: a PIN or a password too easy to guess. */
export function fieldOfError(error: unknown): 'pin' | 'password' | undefined {
  if (!(error instanceof ApiError)) return undefined;
  return error.code === 4010 ? 'pin' : error.code === 4011 ? 'password' : undefined;
}

function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
