import { createHash } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import { Errors } from '../errors/codes.ts';

/**
 * The weak-PIN and weak-password rule (NIST SP 800-63B, 5.1.1.2: refuse values that are commonly
 * used, expected or compromised, and say why). One rule, checked on the plaintext where it reaches
 * the service (the CLI), and on the SHA-256 hex the wallet app and the API send (sign-up, PIN
 * change): a 6-digit PIN has few enough weak values that every one is hashed and compared, so the
 * PIN rule holds in full on a hash; of the password rule a hash allows the deny-list and equality
 * to the e-mail or the name, and the wallet app checks length and containment before it hashes.
 * Partner passwords (A2, A3) arrive as hashes from partners' own software: only those checks apply.
 */

/** What is known of the person a secret belongs to, to refuse secrets made of it. */
export interface SecretContext {
  email?: string;
  name?: string;
  /** YYYY-MM-DD. */
  birth?: string;
}

/** PINs people pick most often that the repeat and run rules do not already catch. */
const COMMON_PINS = ['112233', '123321', '147258', '159753', '102030', '696969', '520520', '789456', '258369', '147852', '111222', '000111', '332211', '654123', '123654'];

/** The most common passwords of 8 or more characters (shorter ones are refused by length). */
const COMMON_PASSWORDS = [
  'password', 'password1', 'password123', 'passw0rd', 'p@ssw0rd', '12345678', '123456789', '1234567890', '11111111', '00000000',
  '87654321', 'qwertyui', 'qwertyuiop', 'qwerty123', 'qwerty12', '1q2w3e4r', '1q2w3e4r5t', 'asdfghjk', 'asdfasdf', 'zxcvbnm1',
  'iloveyou', 'iloveyou1', 'sunshine', 'princess', 'football', 'baseball', 'welcome1', 'welcome123', 'letmein1', 'trustno1',
  'superman', 'starwars', 'whatever', 'dragon12', 'master12', 'abcd1234', 'abc12345', 'abcdefgh', 'aa123456', 'computer',
  'michelle', 'jennifer', 'internet', 'shadow12', 'monkey12', 'changeme', 'administrator', 'admin123', 'secret12', 'wallet123',
];

const MIN_PASSWORD_LENGTH = 8;

/** Throws AppError 4010 (with what is wrong) when a PIN is too easy to guess. */
export function assertStrongPin(pin: string, context: SecretContext = {}): void {
  const reason = weakPinReason(pin, context);
  if (reason) throw new AppError(Errors.WeakPin, { detail: `the PIN ${reason}; choose one that is not a pattern or a date` });
}

/** Throws AppError 4011 (with what is wrong) when a password is too easy to guess. */
export function assertStrongPassword(password: string, context: SecretContext = {}): void {
  const reason = weakPasswordReason(password, context);
  if (reason) throw new AppError(Errors.WeakPassword, { detail: `the password ${reason}` });
}

/** assertStrongPin for a PIN sent as its SHA-256 hex (6-digit PINs: every weak one is compared). */
export function assertStrongPinHash(pinHash: string, context: SecretContext = {}): void {
  const pin = weakPinsByHash(context).get(pinHash.toLowerCase());
  if (pin !== undefined) assertStrongPin(pin, context);
}

/** assertStrongPassword as far as a SHA-256 hex allows: the deny-list, and equality to the e-mail, its local part or the name. */
export function assertStrongPasswordHash(passwordHash: string, context: SecretContext = {}): void {
  const password = guessablePasswordsByHash(context).get(passwordHash.toLowerCase());
  if (password === undefined) return;
  assertStrongPassword(password, context);
  throw new AppError(Errors.WeakPassword, { detail: 'the password is your e-mail address or your name' });
}

/** Why a PIN is weak, in words ("is all one digit"), or undefined. */
export function weakPinReason(pin: string, context: SecretContext = {}): string | undefined {
  if (/^(\d)\1*$/.test(pin)) return 'is one digit repeated';
  if (isRun(pin, 1) || isRun(pin, -1)) return 'is a run of digits in order';
  if (/^(\d{2,3})\1+$/.test(pin)) return 'is a short group of digits repeated';
  if (COMMON_PINS.includes(pin)) return 'is one of the most common PINs';
  if (birthDateForms(context.birth).has(pin)) return 'is your birth date';
  return undefined;
}

/** Why a password is weak, in words, or undefined. */
export function weakPasswordReason(password: string, context: SecretContext = {}): string | undefined {
  if ([...password].length < MIN_PASSWORD_LENGTH) return `is shorter than ${MIN_PASSWORD_LENGTH} characters`;
  const lower = password.toLowerCase();
  if (COMMON_PASSWORDS.includes(lower)) return 'is one of the most common passwords';
  const localPart = context.email?.trim().split('@')[0]?.toLowerCase();
  if (localPart && localPart.length >= 3 && lower.includes(localPart)) return 'contains your e-mail address';
  const nameParts = (context.name ?? '').toLowerCase().split(/\s+/).filter((part) => part.length >= 3);
  const wholeName = nameParts.join('');
  if (nameParts.some((part) => lower.includes(part)) || (wholeName && lower.replace(/\s+/g, '').includes(wholeName))) return 'contains your name';
  return undefined;
}

/** Whether every digit is the one before plus `step` (123456, 654321). */
function isRun(pin: string, step: 1 | -1): boolean {
  if (!/^\d{3,}$/.test(pin)) return false;
  return [...pin].every((digit, index) => index === 0 || Number(digit) === Number(pin[index - 1]) + step);
}

/** The 6-digit forms of a birth date: YYMMDD, DDMMYY, MMDDYY, YYYYMM, MMYYYY, DDMMYYYY's first six. */
function birthDateForms(birth: string | undefined): Set<string> {
  const parts = /^(\d{2})(\d{2})-(\d{2})-(\d{2})$/.exec(birth ?? '');
  if (!parts) return new Set();
  const [, century, year, month, day] = parts as unknown as [string, string, string, string, string];
  return new Set([year + month + day, day + month + year, month + day + year, century + year + month, month + century + year, day + month + century]);
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Every 6-digit PIN the rule refuses without context: repeats of 1 to 3 digits, runs, the common list. */
let staticWeakPins: Map<string, string> | undefined;

function weakPinsByHash(context: SecretContext): Map<string, string> {
  if (!staticWeakPins) {
    const pins = new Set<string>(COMMON_PINS);
    for (let group = 0; group < 1000; group++) {
      if (group < 10) pins.add(String(group).repeat(6));
      if (group < 100) pins.add(String(group).padStart(2, '0').repeat(3));
      pins.add(String(group).padStart(3, '0').repeat(2));
    }
    for (let start = 0; start <= 4; start++) pins.add('0123456789'.slice(start, start + 6)).add('9876543210'.slice(start, start + 6));
    staticWeakPins = new Map([...pins].map((pin) => [sha256(pin), pin]));
  }
  const forms = birthDateForms(context.birth);
  if (forms.size === 0) return staticWeakPins;
  return new Map([...staticWeakPins, ...[...forms].map((pin) => [sha256(pin), pin] as const)]);
}

let staticWeakPasswords: Map<string, string> | undefined;

function guessablePasswordsByHash(context: SecretContext): Map<string, string> {
  staticWeakPasswords ??= new Map(COMMON_PASSWORDS.flatMap((password) => spellings(password)).map((password) => [sha256(password), password]));
  const email = context.email?.trim() ?? '';
  const name = context.name?.trim() ?? '';
  const personal = [email, email.split('@')[0] ?? '', name, name.replace(/\s+/g, '')].filter((text) => text.length > 0);
  if (personal.length === 0) return staticWeakPasswords;
  return new Map([...staticWeakPasswords, ...personal.flatMap((text) => spellings(text)).map((text) => [sha256(text), text] as const)]);
}

/** The spellings people type of a word: as is, lower case, upper case, capitalised. */
function spellings(text: string): string[] {
  const lower = text.toLowerCase();
  return [...new Set([text, lower, text.toUpperCase(), lower.charAt(0).toUpperCase() + lower.slice(1)])];
}
