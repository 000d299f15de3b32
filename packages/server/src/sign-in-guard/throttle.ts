import { randomBytes } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import type { Config } from '../config/config.ts';
import { hashPassword, verifyPassword } from '../custody/passwords.ts';
import { AppError } from '../errors/app-error.ts';
import { KeyedQueue } from '../lib/keyed-queue.ts';
import { blockedUntilOf, clearFailures, countFailure, extendBlock, failuresOf } from './store.ts';
import type { Db } from '../store/database.ts';
import { Errors } from '../errors/codes.ts';

export type ThrottleSettings = Config['partnerApi']['signInThrottle'];

/** Who a wrong password is counted against. */
export interface ThrottleSubject {
  /** The client address the attempt came from (clientAddressKey). */
  address: string;
  /** The login tried (the e-mail, lower-case): known or not, it is counted alike. */
  login: string;
  /** The account (partner or wallet member) whose password was tried, once known. */
  accountId?: string;
}

const addressScope = (address: string) => `address:${address}`;
/** One address guessing at one login: what the back-off blocks, so the owner elsewhere is not locked out. */
const pairScope = (address: string, login: string) => `pair:${address}|${login}`;
/** Every address guessing at one account: only slows its checks down (accountFreeFailures). */
const accountScope = (accountId: string) => `account:${accountId}`;

/** An account whose password can be checked. */
export interface PasswordAccount {
  id: string;
  password_hash: string;
}

/**
 * Wrong-password back-off for partners (sign-in and password change) and wallet members (sign-in),
 * kept in the store so every service process sees the same counts. Two scopes block, each after its
 * free failures with a wait of `baseDelayMs * 2^(n - free)`, at most `maxDelayMs`:
 * - one client address and one login (`addressAccountFreeFailures`): a guesser at an account;
 * - one client address over all logins (`addressFreeFailures`, higher): a guesser spraying e-mails.
 * Neither touches the owner signing in from another address. What is counted per account over all
 * addresses (a guesser with many addresses) never refuses: past `accountFreeFailures` each check of
 * that account first waits `accountSlowdownMs`, which slows guessing and only delays the owner.
 * An unknown login is counted and timed as a wrong password (a password hash is run for it too), so
 * the back-off does not tell which e-mails are accounts. A right password clears its login's and
 * its account's counts. Counts are forgotten once the last failure is older than `windowMs`.
 *
 * One instance per service (`services.signInThrottle`): checks from one address take turns in this
 * process, so guesses sent side by side are each counted before the next is looked at, as guesses
 * sent one after another are. With several processes on one store, each can have one check per
 * address under way when a wait begins.
 */
export class SignInThrottle {
  readonly #db: Db;
  readonly #settings: ThrottleSettings;
  readonly #turns = new KeyedQueue();
  readonly #onThrottled: (() => void) | undefined;
  readonly #scryptCost: number | undefined;
  #standInHashPromise: Promise<string> | undefined;

  /**
   * `onThrottled` is told of each sign-in refused while its scope waits (metrics); `scryptCost` is
   * the N of the accounts' password hashes (config custody.scryptCost), so that a login no account
   * has costs what a wrong password does.
   */
  constructor(db: Db, settings: ThrottleSettings, options: { onThrottled?: () => void; scryptCost?: number } = {}) {
    this.#db = db;
    this.#settings = settings;
    this.#onThrottled = options.onThrottled;
    this.#scryptCost = options.scryptCost;
  }

  /**
   * Checks a password (SHA-256 hex, as sent) under the back-off and answers the account it opens.
   * Refusals in order: the address, or the address for this login, is waiting (4008); `findAccount`
   * finds none (406); wrong password (4004). 406 and 4004 are counted alike.
   */
  async checkPassword<Account extends PasswordAccount>(
    attempt: { address: string; login: string; password: string },
    findAccount: () => Promise<Account | undefined>,
  ): Promise<Account> {
    const { address, password } = attempt;
    const login = attempt.login.trim().toLowerCase();
    return this.#turns.run(addressScope(address), async () => {
      await this.#assertAllowed({ address, login });
      const account = await findAccount();
      if (!account) {
        await verifyPassword(password, await this.#standInHash());
        await this.#recordFailure({ address, login });
        throw new AppError(Errors.UserNotFound);
      }
      const subject = { address, login, accountId: account.id };
      await this.#slowDownWhenGuessedAt(account.id);
      if (!(await verifyPassword(password, account.password_hash))) {
        await this.#recordFailure(subject);
        throw new AppError(Errors.WrongPassword);
      }
      await this.#recordSuccess(subject);
      return account;
    });
  }

  // The steps below are private: used outside checkPassword's turns, a check and its count could interleave again.

  /** Throws AppError 4008 (with `retryAfterSeconds`) while the address, or the address for this login, is waiting. */
  async #assertAllowed(subject: ThrottleSubject, nowMs: number = Date.now()): Promise<void> {
    const scopes = [addressScope(subject.address), pairScope(subject.address, subject.login)];
    const blockedUntil = Math.max(0, ...(await blockedUntilOf(this.#db, scopes)));
    if (blockedUntil <= nowMs) return;
    this.#onThrottled?.();
    throw new ThrottledError(Math.ceil((blockedUntil - nowMs) / 1000));
  }

  /** Past the account's free failures (from all addresses), a check waits a little first: slowed, never refused. */
  async #slowDownWhenGuessedAt(accountId: string, nowMs: number = Date.now()): Promise<void> {
    const failures = await failuresOf(this.#db, accountScope(accountId), nowMs - this.#settings.windowMs);
    if (failures < this.#settings.accountFreeFailures) return;
    await setTimeout(this.#settings.accountSlowdownMs);
  }

  /** Counts one wrong password against the address, the address and login, and the account when known. */
  async #recordFailure(subject: ThrottleSubject, nowMs: number = Date.now()): Promise<void> {
    await this.#count(addressScope(subject.address), this.#settings.addressFreeFailures, nowMs);
    await this.#count(pairScope(subject.address, subject.login), this.#settings.addressAccountFreeFailures, nowMs);
    if (subject.accountId) await countFailure(this.#db, accountScope(subject.accountId), nowMs, nowMs - this.#settings.windowMs);
  }

  /** A right password: its login's and account's counts start again (the address's does not, or one good account would hide guessing at others). */
  async #recordSuccess(subject: ThrottleSubject & { accountId: string }): Promise<void> {
    await clearFailures(this.#db, [pairScope(subject.address, subject.login), accountScope(subject.accountId)]);
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

  /** A hash of no one's password, checked for an unknown login so that it takes as long as a known one. */
  #standInHash(): Promise<string> {
    this.#standInHashPromise ??= hashPassword(randomBytes(32).toString('hex'), this.#scryptCost);
    return this.#standInHashPromise;
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
