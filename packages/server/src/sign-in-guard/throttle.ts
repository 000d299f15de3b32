import type { Config } from '../config/config.ts';
import { verifyPassword } from '../custody/passwords.ts';
import { AppError } from '../errors/app-error.ts';
import { KeyedQueue } from '../lib/keyed-queue.ts';
import { blockedUntilOf, clearFailures, countFailure, extendBlock } from './store.ts';
import type { Db } from '../store/database.ts';
import { Errors } from '../errors/codes.ts';

export type ThrottleSettings = Config['partnerApi']['signInThrottle'];

/** Who a wrong password is counted against. */
export interface ThrottleSubject {
  /** The client address the attempt came from. */
  address: string;
  /** The account (partner or wallet member) whose password was tried, once known. */
  accountId?: string;
}

const accountScope = (accountId: string) => `account:${accountId}`;
const addressScope = (address: string) => `address:${address}`;

/** An account whose password can be checked. */
export interface PasswordAccount {
  id: string;
  password_hash: string;
}

/**
 * Wrong-password back-off for partners (sign-in and password change) and wallet members (sign-in), kept in the store so every
 * service process sees the same counts. Each scope (client address, account) has some free failures;
 * after them each further failure makes the scope wait `baseDelayMs * 2^(n - free)`, at most
 * `maxDelayMs`. A wait always ends, and a right password clears the account's count, so the owner is
 * never locked out for longer than `maxDelayMs`. Counts are forgotten once the last failure is older
 * than `windowMs`.
 *
 * One instance per service (`services.signInThrottle`): checks of one address, and of one account,
 * take turns in this process, so guesses sent side by side are each counted before the next is
 * looked at, as guesses sent one after another are. With several processes on one store, each can
 * have one check per scope under way when a wait begins.
 */
export class SignInThrottle {
  readonly #db: Db;
  readonly #settings: ThrottleSettings;
  readonly #turns = new KeyedQueue();
  readonly #onThrottled: (() => void) | undefined;

  /** `onThrottled` is told of each sign-in refused while its scope waits (metrics). */
  constructor(db: Db, settings: ThrottleSettings, onThrottled?: () => void) {
    this.#db = db;
    this.#settings = settings;
    this.#onThrottled = onThrottled;
  }

  /**
   * Checks a password (SHA-256 hex, as sent) under the back-off and answers the account it opens.
   * Refusals in order: the address is waiting (4008); `findAccount` finds none (406, counted against
   * the address: guessing e-mails is guessing too); the account is waiting (4008); wrong password
   * (4004, counted against both). A right password clears the account's count.
   */
  async checkPassword<Account extends PasswordAccount>(
    address: string,
    password: string,
    findAccount: () => Promise<Account | undefined>,
  ): Promise<Account> {
    return this.#turns.run(addressScope(address), async () => {
      await this.#assertAllowed({ address });
      const account = await findAccount();
      if (!account) {
        await this.#recordFailure({ address });
        throw new AppError(Errors.UserNotFound);
      }
      const subject = { address, accountId: account.id };
      return this.#turns.run(accountScope(account.id), async () => {
        await this.#assertAllowed(subject);
        if (!(await verifyPassword(password, account.password_hash))) {
          await this.#recordFailure(subject);
          throw new AppError(Errors.WrongPassword);
        }
        await this.#recordSuccess(account.id);
        return account;
      });
    });
  }

  // The steps below are private: used outside checkPassword's turns, a check and its count could interleave again.

  /** Throws AppError 4008 (with `retryAfterSeconds`) while any scope of the subject is waiting. */
  async #assertAllowed(subject: ThrottleSubject, nowMs: number = Date.now()): Promise<void> {
    const scopes = scopesOf(subject);
    const blockedUntil = Math.max(0, ...(await blockedUntilOf(this.#db, scopes)));
    if (blockedUntil <= nowMs) return;
    this.#onThrottled?.();
    throw new ThrottledError(Math.ceil((blockedUntil - nowMs) / 1000));
  }

  /** Counts one wrong password against the address and, when known, the account. */
  async #recordFailure(subject: ThrottleSubject, nowMs: number = Date.now()): Promise<void> {
    await this.#count(addressScope(subject.address), this.#settings.addressFreeFailures, nowMs);
    if (subject.accountId) await this.#count(accountScope(subject.accountId), this.#settings.accountFreeFailures, nowMs);
  }

  /** A right password: the account's count starts again (the address's does not, or one good account would hide guessing at others). */
  async #recordSuccess(accountId: string): Promise<void> {
    await clearFailures(this.#db, accountScope(accountId));
  }

  /** Counts a failure of one scope and, past its free failures, makes its wait longer. */
  async #count(scope: string, freeFailures: number, nowMs: number): Promise<void> {
    const windowStart = nowMs - this.#settings.windowMs;
    const failures = await countFailure(this.#db, scope, nowMs, windowStart);
    if (failures < freeFailures) return;
    const exponent = Math.min(failures - freeFailures, 30);
    const delay = Math.min(this.#settings.maxDelayMs, this.#settings.baseDelayMs * 2 ** exponent);
    const until = nowMs + delay;
    await extendBlock(this.#db, scope, until);
  }
}

/** AppError 4008 with the wait the client should honour (sent as Retry-After). */
export class ThrottledError extends AppError {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super(Errors.PasswordBackOff);
    this.retryAfterSeconds = Math.max(1, retryAfterSeconds);
  }
}

function scopesOf(subject: ThrottleSubject): string[] {
  return subject.accountId ? [addressScope(subject.address), accountScope(subject.accountId)] : [addressScope(subject.address)];
}
