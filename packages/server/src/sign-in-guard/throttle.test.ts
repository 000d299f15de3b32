import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashPassword, sha256Hex } from '../custody/passwords.ts';
import { AppError } from '../errors/app-error.ts';
import { availableTestStoreKinds, openTestStore, type TestStore } from '../testing/test-store.ts';
import { SignInThrottle, type PasswordAccount } from './throttle.ts';

// Waits long enough that none ends during a test: what is checked is how many guesses are tried.
const settings = { addressFreeFailures: 3, accountFreeFailures: 5, baseDelayMs: 600_000, maxDelayMs: 600_000, windowMs: 3_600_000 };

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

    test('20 wrong passwords at once from one address: only the free ones are checked, the rest wait (4008)', async () => {
      const throttle = new SignInThrottle(testStore.store.db, settings);
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, index) => throttle.checkPassword('10.9.0.1', sha256Hex(`guess ${index}`), async () => account)),
      );
      assert.deepEqual(outcomes(results), [...Array(3).fill(4004), ...Array(17).fill(4008)]);
      const counted = await testStore.store.db.selectFrom('sign_in_failures').select('failures').where('scope', '=', 'address:10.9.0.1').executeTakeFirstOrThrow();
      assert.equal(Number(counted.failures), 3);
    });

    test('20 wrong passwords at once for one account from 20 addresses: only the account\'s free ones are checked', async () => {
      const throttle = new SignInThrottle(testStore.store.db, settings);
      const target = { id: 'account-2', password_hash: account.password_hash };
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, index) => throttle.checkPassword(`10.9.1.${index}`, sha256Hex(`guess ${index}`), async () => target)),
      );
      const codes = outcomes(results);
      assert.equal(count(codes, 4004), 5, codes.join(','));
      assert.equal(count(codes, 4008), 15, codes.join(','));
    });

    test('right passwords at once all sign in, and a wrong one among them is counted once', async () => {
      const throttle = new SignInThrottle(testStore.store.db, settings);
      const target = { id: 'account-3', password_hash: account.password_hash };
      const passwords = [rightPassword, rightPassword, sha256Hex('wrong'), rightPassword, rightPassword, rightPassword];
      const results = await Promise.allSettled(passwords.map((password) => throttle.checkPassword('10.9.2.1', password, async () => target)));
      assert.deepEqual(outcomes(results), ['signed in', 'signed in', 4004, 'signed in', 'signed in', 'signed in']);
    });

    test('an unknown account answers 406 and counts against the address', async () => {
      const throttle = new SignInThrottle(testStore.store.db, settings);
      const results = await Promise.allSettled(
        Array.from({ length: 5 }, () => throttle.checkPassword('10.9.3.1', rightPassword, async () => undefined)),
      );
      assert.deepEqual(outcomes(results), [406, 406, 406, 4008, 4008]);
    });
  });
}
