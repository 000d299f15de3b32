import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { entropyToMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { recoverTransactionAddress, serializeTransaction, verifyMessage, type TransactionSerializable } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { AppError } from '../errors/app-error.ts';
import { availableTestStoreKinds, openTestStore, type TestStore } from '../testing/test-store.ts';
import { openSecret } from './envelope.ts';
import { deriveEvmPrivateKey, KeyVault, MAX_PIN_FAILURES } from './key-vault.ts';
import { sha256Hex } from './passwords.ts';

const TEST_MNEMONIC = 'test test test test test test test test test test test junk';
/** The first account of TEST_MNEMONIC, as every Ethereum dev tool lists it. */
const TEST_MNEMONIC_ADDRESS = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

const rightPin = sha256Hex('123456');
const wrongPin = sha256Hex('000000');

function appError(code: number) {
  return (error: unknown) => {
    assert.ok(error instanceof AppError, `expected AppError ${code}, got ${String(error)}`);
    assert.equal(error.code, code);
    return true;
  };
}

test('deriveEvmPrivateKey follows m/44\'/60\'/0\'/0/0', () => {
  const privateKey = deriveEvmPrivateKey(TEST_MNEMONIC);
  const address = privateKeyToAccount(`0x${Buffer.from(privateKey).toString('hex')}`).address.toLowerCase();
  assert.equal(address, TEST_MNEMONIC_ADDRESS);
  assert.equal(address, mnemonicToAccount(TEST_MNEMONIC).address.toLowerCase());
  assert.equal(KeyVault.deriveEvmPrivateKey, deriveEvmPrivateKey);
});

for (const kind of availableTestStoreKinds()) {
  describe(`KeyVault on ${kind}`, () => {
    let testStore: TestStore;
    let vault: KeyVault;
    const masterKey = randomBytes(32);

    before(async () => {
      testStore = await openTestStore(kind);
      vault = new KeyVault(testStore.store.db, masterKey);
    });
    after(() => testStore.cleanup());

    const db = () => testStore.store.db;
    const newPinKey = (ownerId: string, pin = rightPin) =>
      vault.createKey({ ownerType: 'partner', ownerId, protection: 'pin', secretKind: 'private_key', pin });

    test('a PIN key opens under any scrypt cost setting: the cost it was sealed with is stored with it', async () => {
      const cheapVault = new KeyVault(db(), masterKey, { scryptCost: 2 ** 10 });
      const { keyId, address } = await cheapVault.createKey({ ownerType: 'partner', ownerId: 'cheap-pin', protection: 'pin', secretKind: 'private_key', pin: rightPin });
      const row = await db().selectFrom('signing_keys').select('kdf_salt').where('id', '=', keyId).executeTakeFirstOrThrow();
      assert.match(row.kdf_salt, /^n10:/);
      // The vault of a service started with the default cost.
      assert.equal((await vault.unlock(keyId, rightPin)).address, address);
      await assert.rejects(vault.unlock(keyId, wrongPin));
      const newPin = sha256Hex('246810');
      await vault.changePin(keyId, rightPin, newPin);
      const changed = await db().selectFrom('signing_keys').select('kdf_salt').where('id', '=', keyId).executeTakeFirstOrThrow();
      assert.doesNotMatch(changed.kdf_salt, /:/, 'the new PIN takes the cost of the vault that set it');
      assert.equal((await cheapVault.unlock(keyId, newPin)).address, address);
    });

    test('a server key signs messages that verify against its stored address', async () => {
      const { keyId, address } = await vault.createKey({
        ownerType: 'operator',
        ownerId: 'operator',
        protection: 'server',
        secretKind: 'private_key',
      });
      assert.match(address, /^0x[0-9a-f]{40}$/);
      const unlocked = await vault.unlock(keyId);
      assert.equal(unlocked.address, address);
      assert.equal(unlocked.mnemonic, undefined);
      const signature = await unlocked.account.signMessage({ message: 'hello' });
      assert.equal(await verifyMessage({ address, message: 'hello', signature }), true);
      assert.deepEqual(await vault.findByOwner('operator', 'operator'), { keyId, address });
      assert.equal(await vault.findByOwner('operator', 'nobody'), undefined);
      await assert.rejects(vault.unlock(keyId, rightPin), /takes no PIN/);
      assert.equal(await vault.pinFailures(keyId), 0);
    });

    test('an unlocked key signs a transaction to the bytes viem signs with the same key, with the serializer the caller gives', async () => {
      const { keyId, address } = await vault.createKey({ ownerType: 'user', ownerId: 'signs-transactions', protection: 'server', secretKind: 'mnemonic_entropy' });
      const { account, mnemonic } = await vault.unlock(keyId);
      const viemAccount = privateKeyToAccount(`0x${Buffer.from(deriveEvmPrivateKey(mnemonic!)).toString('hex')}`);
      const transfer = { type: 'eip1559', chainId: 31337, nonce: 4, to: TEST_MNEMONIC_ADDRESS, value: 1n, gas: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n } as const;
      const raw = await account.signTransaction(transfer);
      assert.equal(raw, await viemAccount.signTransaction(transfer));
      assert.equal((await recoverTransactionAddress({ serializedTransaction: raw as never })).toLowerCase(), address);
      const serialized: string[] = [];
      const serializer = ((transaction: TransactionSerializable, signature?: unknown) => {
        serialized.push(signature ? 'signed' : 'unsigned');
        return serializeTransaction(transaction, signature as never);
      }) as typeof serializeTransaction;
      assert.equal(await account.signTransaction(transfer, { serializer }), raw);
      assert.deepEqual(serialized, ['unsigned', 'signed']);
    });

    test('a pin key signs after unlocking with its PIN', async () => {
      const { keyId, address } = await newPinKey('partner-sign');
      const unlocked = await vault.unlock(keyId, rightPin);
      const signature = await unlocked.account.signMessage({ message: 'card 7' });
      assert.equal(await verifyMessage({ address, message: 'card 7', signature }), true);
      await assert.rejects(vault.unlock(keyId), appError(4006));
      assert.equal(await vault.pinFailures(keyId), 0, 'a missing PIN is not a guess');
    });

    test('a user key is a mnemonic whose first EVM account is the stored address', async () => {
      const { keyId, address } = await vault.createKey({
        ownerType: 'user',
        ownerId: 'user-1',
        protection: 'pin',
        secretKind: 'mnemonic_entropy',
        pin: rightPin,
      });
      const unlocked = await vault.unlock(keyId, rightPin);
      assert.ok(unlocked.mnemonic);
      assert.equal(unlocked.mnemonic.split(' ').length, 12);
      assert.equal(mnemonicToAccount(unlocked.mnemonic).address.toLowerCase(), address);
      const signature = await unlocked.account.signMessage({ message: 'hi' });
      assert.equal(await verifyMessage({ address, message: 'hi', signature }), true);
      const row = await db().selectFrom('signing_keys').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow();
      assert.equal(row.secret_kind, 'mnemonic_entropy');
      assert.equal(row.owner_type, 'user');
    });

    test('createKey joins the caller\'s transaction', async () => {
      const committed = await db()
        .transaction()
        .execute((trx) => vault.createKey({ ownerType: 'fee_payer', ownerId: 'fee-payer', protection: 'server', secretKind: 'private_key' }, trx));
      assert.deepEqual(await vault.findByOwner('fee_payer', 'fee-payer'), committed);
      await assert.rejects(
        db()
          .transaction()
          .execute(async (trx) => {
            await vault.createKey({ ownerType: 'fee_payer', ownerId: 'rolled-back', protection: 'server', secretKind: 'private_key' }, trx);
            throw new Error('roll back');
          }),
        /roll back/,
      );
      assert.equal(await vault.findByOwner('fee_payer', 'rolled-back'), undefined);
    });

    test('protectWithPin turns a server key into a PIN key: only the data key is re-wrapped', async () => {
      const { keyId, address } = await vault.createKey({ ownerType: 'user', ownerId: 'reserved-1', protection: 'server', secretKind: 'mnemonic_entropy' });
      const before = await db().selectFrom('signing_keys').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow();
      const mnemonic = (await vault.unlock(keyId)).mnemonic;

      await assert.rejects(
        db()
          .transaction()
          .execute(async (trx) => {
            await vault.protectWithPin(keyId, rightPin, trx);
            throw new Error('roll back');
          }),
        /roll back/,
      );
      assert.equal((await vault.unlock(keyId)).address, address, 'a rolled-back protection leaves the server key');

      await vault.protectWithPin(keyId, rightPin);
      const after = await db().selectFrom('signing_keys').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow();
      assert.equal(after.protection, 'pin');
      assert.deepEqual(
        [after.owner_type, after.owner_id, after.address, after.encrypted_secret],
        [before.owner_type, before.owner_id, before.address, before.encrypted_secret],
      );
      assert.notEqual(after.kdf_salt, before.kdf_salt);
      assert.notEqual(after.wrapped_data_key, before.wrapped_data_key);

      await assert.rejects(vault.unlock(keyId), appError(4006));
      await assert.rejects(vault.unlock(keyId, wrongPin), appError(4006));
      const unlocked = await vault.unlock(keyId, rightPin.toUpperCase());
      assert.deepEqual([unlocked.address, unlocked.mnemonic], [address, mnemonic]);
      assert.equal(await vault.pinFailures(keyId), 0);
      const sealed = { kdfSalt: after.kdf_salt, wrappedDataKey: after.wrapped_data_key, encryptedSecret: after.encrypted_secret };
      await assert.rejects(openSecret({ masterKey, sealed, ownerId: after.owner_id, address }), /does not open/, 'no server wrapping is left');

      await assert.rejects(vault.protectWithPin(keyId, wrongPin), /already PIN-protected/);
      await assert.rejects(vault.protectWithPin('no-such-key', rightPin), /not found/);
    });

    test('two protectWithPin at once: one wins, and only its PIN works', async () => {
      const { keyId } = await vault.createKey({ ownerType: 'user', ownerId: 'reserved-2', protection: 'server', secretKind: 'mnemonic_entropy' });
      const results = await Promise.allSettled([vault.protectWithPin(keyId, rightPin), vault.protectWithPin(keyId, wrongPin)]);
      const won = results.map((result) => result.status === 'fulfilled');
      assert.deepEqual([...won].sort(), [false, true], results.map((result) => (result.status === 'rejected' ? String(result.reason) : 'ok')).join(', '));
      const [winner, loser] = won[0] ? [rightPin, wrongPin] : [wrongPin, rightPin];
      await vault.unlock(keyId, winner);
      await assert.rejects(vault.unlock(keyId, loser), appError(4006));
    });

    test('five wrong PINs in a row lock the key until the operator resets it', async () => {
      const { keyId } = await newPinKey('partner-lockout');
      for (let attempt = 1; attempt < MAX_PIN_FAILURES; attempt += 1) {
        await assert.rejects(vault.unlock(keyId, wrongPin), appError(4006));
        assert.equal(await vault.pinFailures(keyId), attempt);
      }
      await assert.rejects(vault.unlock(keyId, wrongPin), appError(403));
      assert.equal(await vault.pinFailures(keyId), MAX_PIN_FAILURES);
      await assert.rejects(vault.unlock(keyId, rightPin), appError(403));
      await assert.rejects(vault.unlock(keyId), appError(403));
      assert.equal(await vault.pinFailures(keyId), MAX_PIN_FAILURES);

      await vault.resetPinFailures(keyId);
      assert.equal(await vault.pinFailures(keyId), 0);
      await vault.unlock(keyId, rightPin);
    });

    test('the right PIN after three wrong ones resets the count', async () => {
      const { keyId } = await newPinKey('partner-reset');
      for (let attempt = 0; attempt < 3; attempt += 1) await assert.rejects(vault.unlock(keyId, wrongPin), appError(4006));
      assert.equal(await vault.pinFailures(keyId), 3);
      await vault.unlock(keyId, rightPin);
      assert.equal(await vault.pinFailures(keyId), 0);
    });

    test('20 wrong PINs at once: exactly five are tried', async () => {
      const { keyId } = await newPinKey('partner-parallel');
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => vault.unlock(keyId, wrongPin)));
      const codes = results.map((result) => {
        assert.equal(result.status, 'rejected');
        assert.ok(result.reason instanceof AppError, String(result.reason));
        return result.reason.code;
      });
      // Four wrong PINs answer 4006, the fifth locks (403), and the other fifteen are not tried.
      assert.deepEqual([...codes].sort((a, b) => a - b), [...Array(20 - MAX_PIN_FAILURES + 1).fill(403), ...Array(MAX_PIN_FAILURES - 1).fill(4006)]);
      assert.equal(await vault.pinFailures(keyId), MAX_PIN_FAILURES);
    });

    test('20 right PINs at once all unlock: attempts waiting their turn are not counted as failures', async () => {
      const { keyId, address } = await newPinKey('partner-parallel-right');
      for (let attempt = 0; attempt < 3; attempt += 1) await assert.rejects(vault.unlock(keyId, wrongPin), appError(4006));
      const unlocked = await Promise.all(Array.from({ length: 20 }, () => vault.unlock(keyId, rightPin)));
      assert.deepEqual(new Set(unlocked.map((key) => key.address)), new Set([address]));
      assert.equal(await vault.pinFailures(keyId), 0);
    });

    test('a wrong PIN among right ones at once answers 4006 and leaves no count behind the right ones', async () => {
      const { keyId } = await newPinKey('partner-parallel-mixed');
      const pins = [rightPin, rightPin, wrongPin, rightPin, rightPin, rightPin, rightPin];
      const results = await Promise.allSettled(pins.map((pin) => vault.unlock(keyId, pin)));
      assert.deepEqual(
        results.map((result) => (result.status === 'fulfilled' ? 'unlocked' : (result.reason as AppError).code)),
        ['unlocked', 'unlocked', 4006, 'unlocked', 'unlocked', 'unlocked', 'unlocked'],
      );
      // Calls at once are tried in the order their reads of the row come back, which on PostgreSQL's
      // pool is not the order of the calls: the wrong PIN stays counted when it was tried last (one
      // wrong PIN in a row), never more (each right one's attempt, counted before it was tried, is not).
      assert.ok((await vault.pinFailures(keyId)) <= 1);
      await vault.unlock(keyId, rightPin);
      assert.equal(await vault.pinFailures(keyId), 0);
    });

    test('changePin: the old PIN stops working, the new one works, the count is reset', async () => {
      const { keyId } = await newPinKey('partner-change');
      const newPin = sha256Hex('246810');
      const before = await db().selectFrom('signing_keys').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow();

      await assert.rejects(vault.unlock(keyId, wrongPin), appError(4006));
      await assert.rejects(vault.changePin(keyId, wrongPin, newPin), appError(4006));
      assert.equal(await vault.pinFailures(keyId), 2);
      await assert.rejects(vault.changePin(keyId, rightPin, rightPin.toUpperCase()), appError(4007));

      await vault.changePin(keyId, rightPin, newPin);
      assert.equal(await vault.pinFailures(keyId), 0);
      const afterChange = await db().selectFrom('signing_keys').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow();
      assert.equal(afterChange.encrypted_secret, before.encrypted_secret);
      assert.notEqual(afterChange.kdf_salt, before.kdf_salt);
      assert.notEqual(afterChange.wrapped_data_key, before.wrapped_data_key);

      await assert.rejects(vault.unlock(keyId, rightPin), appError(4006));
      const unlocked = await vault.unlock(keyId, newPin);
      assert.equal(unlocked.address, before.address);
      assert.equal(await vault.pinFailures(keyId), 0);
    });

    test('changePin on a locked key: refused whatever the old PIN until the operator resets it', async () => {
      const { keyId } = await newPinKey('partner-locked-change');
      const newPin = sha256Hex('135790');
      for (let attempt = 0; attempt < MAX_PIN_FAILURES; attempt += 1) await assert.rejects(vault.unlock(keyId, wrongPin));
      // No guess is tried past the lock, through unlock or changePin alike.
      await assert.rejects(vault.changePin(keyId, wrongPin, newPin), appError(403));
      await assert.rejects(vault.changePin(keyId, rightPin, newPin), appError(403));
      assert.equal(await vault.pinFailures(keyId), MAX_PIN_FAILURES);
      await assert.rejects(vault.unlock(keyId, rightPin), appError(403));

      await vault.resetPinFailures(keyId);
      await assert.rejects(vault.changePin(keyId, wrongPin, newPin), appError(4006));
      await vault.changePin(keyId, rightPin, newPin);
      assert.equal(await vault.pinFailures(keyId), 0);
      await vault.unlock(keyId, newPin);
    });

    test('two PIN changes at once: one wins, the other is refused, no update is lost', async () => {
      const { keyId } = await newPinKey('partner-race');
      const pins = [sha256Hex('111111'), sha256Hex('222222')];
      const results = await Promise.allSettled(pins.map((pin) => vault.changePin(keyId, rightPin, pin)));
      const won = results.findIndex((result) => result.status === 'fulfilled');
      const lost = 1 - won;
      assert.ok(won >= 0, 'one change succeeds');
      const loser = results[lost];
      assert.equal(loser?.status, 'rejected');
      appError(4006)((loser as PromiseRejectedResult).reason);
      await vault.unlock(keyId, pins[won]!);
      await assert.rejects(vault.unlock(keyId, pins[lost]!), appError(4006));
      await assert.rejects(vault.unlock(keyId, rightPin), appError(4006));
    });

    test('a PIN change repeated after it landed, in this process or another, is refused uncounted; any other wrong pair is counted', async () => {
      const { keyId } = await newPinKey('partner-late-repeat');
      const newPin = sha256Hex('864209');
      const otherProcess = new KeyVault(db(), masterKey);
      await vault.changePin(keyId, rightPin, newPin);

      // The same change sent again reaches the key after the first one changed it: the wrapping it
      // would compare with is gone, so what the change left tells it apart from a wrong PIN.
      await assert.rejects(vault.changePin(keyId, rightPin, newPin), appError(4006));
      await assert.rejects(otherProcess.changePin(keyId, rightPin.toUpperCase(), newPin.toUpperCase()), appError(4006));
      assert.equal(await vault.pinFailures(keyId), 0, 'repeats are not counted');

      // Only both PINs right make a repeat: the previous PIN with another new one, or a wrong old PIN with the new one, are guesses.
      await assert.rejects(vault.changePin(keyId, rightPin, sha256Hex('975310')), appError(4006));
      await assert.rejects(otherProcess.changePin(keyId, wrongPin, newPin), appError(4006));
      assert.equal(await vault.pinFailures(keyId), 2);

      // A later change replaces what the first one left: repeating the first is a wrong PIN from then on.
      const thirdPin = sha256Hex('102938');
      await vault.changePin(keyId, newPin, thirdPin);
      await assert.rejects(vault.changePin(keyId, rightPin, newPin), appError(4006));
      assert.equal(await vault.pinFailures(keyId), 1);
      await vault.unlock(keyId, thirdPin);
    });

    test('no plaintext secret reaches the store', async () => {
      const created = [
        await vault.createKey({ ownerType: 'operator', ownerId: 'op-scan', protection: 'server', secretKind: 'private_key' }),
        await vault.createKey({ ownerType: 'fee_payer', ownerId: 'fp-scan', protection: 'server', secretKind: 'private_key' }),
        { ...(await newPinKey('partner-scan')), pin: rightPin },
        {
          ...(await vault.createKey({ ownerType: 'user', ownerId: 'user-scan-1', protection: 'pin', secretKind: 'mnemonic_entropy', pin: rightPin })),
          pin: rightPin,
        },
        await vault.createKey({ ownerType: 'user', ownerId: 'user-scan-2', protection: 'server', secretKind: 'mnemonic_entropy' }),
      ];
      const rows = await db().selectFrom('signing_keys').selectAll().execute();
      const needles: string[] = [];
      for (const key of created) {
        const row = rows.find((candidate) => candidate.id === key.keyId);
        assert.ok(row);
        const secret = await openSecret({
          masterKey,
          sealed: { kdfSalt: row.kdf_salt, wrappedDataKey: row.wrapped_data_key, encryptedSecret: row.encrypted_secret },
          ownerId: row.owner_id,
          address: row.address,
          pin: 'pin' in key ? key.pin : undefined,
        });
        const secretHex = Buffer.from(secret).toString('hex');
        needles.push(secretHex, `0x${secretHex}`, Buffer.from(secret).toString('base64'));
        if (row.secret_kind === 'mnemonic_entropy') {
          const mnemonic = entropyToMnemonic(secret, wordlist);
          const privateKeyHex = Buffer.from(deriveEvmPrivateKey(mnemonic)).toString('hex');
          needles.push(mnemonic, privateKeyHex, `0x${privateKeyHex}`);
          assert.equal(mnemonicToAccount(mnemonic).address.toLowerCase(), row.address);
        } else {
          assert.equal(privateKeyToAccount(`0x${secretHex}`).address.toLowerCase(), row.address);
        }
      }
      assert.ok(needles.length >= 5 * 3);
      for (const row of rows) {
        for (const [column, value] of Object.entries(row)) {
          const text = String(value);
          for (const needle of needles) {
            assert.ok(!text.toLowerCase().includes(needle.toLowerCase()), `plaintext found in ${column} of ${row.id}`);
          }
        }
      }
    });
  });
}

for (const kind of availableTestStoreKinds()) {
  describe(`KeyVault unlocked keys held in memory, on ${kind}`, () => {
    let testStore: TestStore;
    const masterKey = randomBytes(32);
    let clock = 1_000_000;
    let vault: KeyVault;
    /** A second process on the same store: it holds keys of its own. */
    let other: KeyVault;

    before(async () => {
      testStore = await openTestStore(kind);
      vault = new KeyVault(testStore.store.db, masterKey, { unlockedKeys: { ttlMs: 60_000, now: () => clock } });
      other = new KeyVault(testStore.store.db, masterKey, { unlockedKeys: { ttlMs: 60_000, now: () => clock } });
    });
    after(() => testStore.cleanup());

    const newPinKey = (ownerId: string) => vault.createKey({ ownerType: 'partner', ownerId, protection: 'pin', secretKind: 'private_key', pin: rightPin });

    test('the right PIN within the time reuses the unlocked key; a wrong PIN never does', async () => {
      const { keyId, address } = await newPinKey('held-1');
      const first = await vault.unlock(keyId, rightPin);
      assert.equal(first.address, address);
      assert.equal(await vault.unlock(keyId, rightPin.toUpperCase()), first, 'held: the same key, no scrypt');
      await assert.rejects(vault.unlock(keyId, wrongPin), appError(4006));
      assert.equal(await vault.pinFailures(keyId), 1);
      const again = await vault.unlock(keyId, rightPin);
      assert.notEqual(again, first, 'a wrong PIN wiped the held key');
      assert.equal(await vault.pinFailures(keyId), 0);
    });

    test('a held key expires after its time, counted from the PIN check', async () => {
      const { keyId } = await newPinKey('held-2');
      const first = await vault.unlock(keyId, rightPin);
      clock += 59_000;
      assert.equal(await vault.unlock(keyId, rightPin), first);
      clock += 1_000;
      const fresh = await vault.unlock(keyId, rightPin);
      assert.notEqual(fresh, first, 'expired at 60 s although used at 59 s');
      assert.equal(await vault.unlock(keyId, rightPin), fresh);
    });

    test('a PIN change wipes the held key, in this process and in another one', async () => {
      const { keyId } = await newPinKey('held-3');
      const newPin = sha256Hex('246810');
      await vault.unlock(keyId, rightPin);
      await other.unlock(keyId, rightPin);
      await vault.changePin(keyId, rightPin, newPin);
      await assert.rejects(vault.unlock(keyId, rightPin), appError(4006));
      await assert.rejects(other.unlock(keyId, rightPin), appError(4006), 'the other process noticed the new wrapping');
      assert.ok(await other.unlock(keyId, newPin));
    });

    test('a lockout made in another process applies at once to a held key', async () => {
      const { keyId } = await newPinKey('held-4');
      const held = await vault.unlock(keyId, rightPin);
      assert.equal(await vault.unlock(keyId, rightPin), held);
      for (let attempt = 1; attempt < MAX_PIN_FAILURES; attempt++) await assert.rejects(other.unlock(keyId, wrongPin), appError(4006));
      await assert.rejects(other.unlock(keyId, wrongPin), appError(403));
      await assert.rejects(vault.unlock(keyId, rightPin), appError(403));
      await vault.resetPinFailures(keyId);
      assert.notEqual(await vault.unlock(keyId, rightPin), held, 'unlocked again with scrypt after the reset');
    });

    test('closing forgets every held key', async () => {
      const { keyId } = await newPinKey('held-5');
      await vault.unlock(keyId, rightPin);
      assert.ok(vault.unlockedKeysHeld > 0);
      vault.forgetUnlockedKeys();
      assert.equal(vault.unlockedKeysHeld, 0);
    });
  });
}
