import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashPassword, sha256Hex } from '../custody/passwords.ts';
import { AppError } from '../errors/app-error.ts';
import { availableTestStoreKinds, openTestStore, type TestStore } from '../testing/test-store.ts';
import { SignInThrottle, type PasswordAccount } from './throttle.ts';

// Waits long enough that none ends during a test: what is checked is how many guesses are tried.
const settings = { addressFreeFailures: 8, addressAccountFreeFailures: 3, accountFreeFailures: 50, accountSlowdownMs: 0, baseDelayMs: 600_000, maxDelayMs: 600_000, windowMs: 3_600_000 };

function outcomes(results: PromiseSettledResult<unknown>[]): Array<number | 'signed in'> {
  return results.map((result) => {
    if (result.status === 'fulfilled') return 'signed in';
    assert.ok(result.reason instanceof AppError, String(result.reason));
    return result.reason.code;
  });
}

const count = (values: Array<number | string>, value: number | string) => values.filter((each) => each === value).length;

for (const kind of availableTestStoreKinds()) {
  describe(`SignInThrottle on ${kind}`, () => {
    let testStore: TestStore;
    let account: PasswordAccount;
    const rightPassword = sha256Hex('the right one');

    before(async () => {
      testStore = await openTestStore(kind);
      account = { id: 'account-1', password_hash: await hashPassword(rightPassword) };
    });
    after(() => testStore.cleanup());

    const check = (throttle: SignInThrottle, address: string, login: string, password: string, found: PasswordAccount | undefined) =>
      throttle.checkPassword({ address, login, password }, async () => found);

    test('20 wrong passwords at once from one address for one account: only the free ones are checked, the rest wait (4008)', async () => {
      const throttle = new SignInThrottle(testStore.store.db, settings);
      const results = await Promise.allSettled(Array.from({ length: 20 }, (_, index) => check(throttle, '10.9.0.1', 'owner@example.com', sha256Hex(`guess ${index}`), account)));
      assert.deepEqual(outcomes(results), [...Array(3).fill(4004), ...Array(17).fill(4008)]);
      const counted = await testStore.store.db.selectFrom('sign_in_failures').select('failures').where('scope', '=', 'pair:10.9.0.1|owner@example.com').executeTakeFirstOrThrow();
      assert.equal(Number(counted.failures), 3);
    });

    test('the owner signs in from another address while the guesser is backed off, and after 20 guessers more', async () => {
      const throttle = new SignInThrottle(testStore.store.db, settings);
      const target = { id: 'account-2', password_hash: account.password_hash };
      const guesses = await Promise.allSettled(Array.from({ length: 6 }, (_, index) => check(throttle, '10.9.1.1', 'target@example.com', sha256Hex(`guess ${index}`), target)));
      assert.deepEqual(outcomes(guesses), [4004, 4004, 4004, 4008, 4008, 4008]);
      const spread = await Promise.allSettled(Array.from({ length: 20 }, (_, index) => check(throttle, `10.9.2.${index}`, 'target@example.com', sha256Hex(`guess ${index}`), target)));
      assert.equal(count(outcomes(spread), 4004), 20, 'each address is backed off on its own');
      assert.deepEqual(outcomes(await Promise.allSettled([check(throttle, '10.9.1.1', 'target@example.com', rightPassword, target)])), [4008], 'the guesser still waits');
      assert.deepEqual(outcomes(await Promise.allSettled([check(throttle, '10.9.3.1', 'Target@example.com', rightPassword, target)])), ['signed in']);
    });

    test('one address spraying logins waits after addressFreeFailures, wherever the logins lead', async () => {
      const throttle = new SignInThrottle(testStore.store.db, settings);
      const results = await Promise.allSettled(Array.from({ length: 10 }, (_, index) => check(throttle, '10.9.4.1', `person-${index}@example.com`, sha256Hex('guess'), index % 2 ? account : undefined)));
      assert.equal(count(outcomes(results), 4008), 2, outcomes(results).join(','));
    });

    test('past accountFreeFailures from all addresses, checks of the account are slowed, not refused', async () => {
      const target = { id: 'account-4', password_hash: account.password_hash };
      const throttle = new SignInThrottle(testStore.store.db, { ...settings, accountFreeFailures: 2, accountSlowdownMs: 10 });
      for (let index = 0; index < 4; index++) await check(throttle, `10.9.5.${index}`, 'slow@example.com', sha256Hex('guess'), target).catch(() => undefined);
      assert.deepEqual(outcomes(await Promise.allSettled([check(throttle, '10.9.6.1', 'slow@example.com', rightPassword, target)])), ['signed in']);
      const cleared = await testStore.store.db.selectFrom('sign_in_failures').select('scope').where('scope', '=', 'account:account-4').execute();
      assert.deepEqual(cleared, [], 'a right password clears the account count');
    });

    test('an unknown login answers 406 and is counted as a wrong password is', async () => {
      const throttle = new SignInThrottle(testStore.store.db, settings);
      const unknown = await Promise.allSettled(Array.from({ length: 5 }, () => check(throttle, '10.9.7.1', 'ghost@example.com', rightPassword, undefined)));
      const known = await Promise.allSettled(Array.from({ length: 5 }, () => check(throttle, '10.9.7.2', 'owner@example.com', sha256Hex('guess'), account)));
      assert.deepEqual(outcomes(unknown), [406, 406, 406, 4008, 4008]);
      assert.deepEqual(outcomes(known), [4004, 4004, 4004, 4008, 4008], 'the back-off answers alike for a known login');
    });
  });
}
