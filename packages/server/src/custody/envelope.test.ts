import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { isPinChangeRepeat, openSecret, rewrapDataKey, rewrapForMasterKey, sealSecret, wrapServerDataKeyWithPin, WrongKeyError } from './envelope.ts';
import { sha256Hex } from './passwords.ts';

const masterKey = randomBytes(32);
const secret = randomBytes(32);
const ownerId = 'partner-1';
const address = '0x' + 'ab'.repeat(20);
const pin = sha256Hex('123456');
const otherPin = sha256Hex('654321');

function isWrongKey(error: unknown): boolean {
  return error instanceof WrongKeyError;
}

describe('envelope', () => {
  test('a server-protected secret opens with the master key alone', async () => {
    const sealed = await sealSecret({ masterKey, secret, ownerId, address });
    const opened = await openSecret({ masterKey, sealed, ownerId, address });
    assert.deepEqual(Buffer.from(opened), secret);
  });

  test('a pin-protected secret opens with its PIN, in either hex case, and not with another PIN', async () => {
    const sealed = await sealSecret({ masterKey, secret, ownerId, address, pin });
    assert.deepEqual(Buffer.from(await openSecret({ masterKey, sealed, ownerId, address, pin })), secret);
    assert.deepEqual(Buffer.from(await openSecret({ masterKey, sealed, ownerId, address, pin: pin.toUpperCase() })), secret);
    await assert.rejects(openSecret({ masterKey, sealed, ownerId, address, pin: otherPin }), isWrongKey);
  });

  test('a PIN key keeps the scrypt cost it was sealed with, through PIN changes and master key rotations', async () => {
    const byDefault = await sealSecret({ masterKey, secret, ownerId, address, pin });
    assert.match(byDefault.kdfSalt, /^[A-Za-z0-9+/]+=*$/, 'the default cost leaves the salt as it always was');
    const cheap = await sealSecret({ masterKey, secret, ownerId, address, pin, scryptCost: 2 ** 10 });
    assert.match(cheap.kdfSalt, /^n10:[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(Buffer.from(await openSecret({ masterKey, sealed: cheap, ownerId, address, pin })), secret);
    await assert.rejects(openSecret({ masterKey, sealed: cheap, ownerId, address, pin: otherPin }), isWrongKey);
    // The cost is part of the KDF: the same salt read at the default cost opens nothing.
    await assert.rejects(openSecret({ masterKey, sealed: { ...cheap, kdfSalt: cheap.kdfSalt.slice('n10:'.length) }, ownerId, address, pin }), isWrongKey);

    const changed = await rewrapDataKey({ masterKey, sealed: cheap, oldPin: pin, newPin: otherPin, scryptCost: 2 ** 11 });
    assert.match(changed.kdfSalt, /^n11:/);
    assert.deepEqual(Buffer.from(await openSecret({ masterKey, sealed: { ...cheap, ...changed }, ownerId, address, pin: otherPin })), secret);
    const back = await rewrapDataKey({ masterKey, sealed: changed, oldPin: otherPin, newPin: pin });
    assert.doesNotMatch(back.kdfSalt, /:/, 'a PIN set at the default cost has no prefix');
    assert.deepEqual(Buffer.from(await openSecret({ masterKey, sealed: { ...cheap, ...back }, ownerId, address, pin })), secret);

    const newMasterKey = randomBytes(32);
    const rotated = await rewrapForMasterKey({ from: masterKey, to: newMasterKey, sealed: cheap, protection: 'pin' });
    assert.equal(rotated.kdfSalt, cheap.kdfSalt);
    assert.deepEqual(Buffer.from(await openSecret({ masterKey: newMasterKey, sealed: { ...cheap, ...rotated }, ownerId, address, pin })), secret);

    const fromServer = await wrapServerDataKeyWithPin({ masterKey, sealed: await sealSecret({ masterKey, secret, ownerId, address }), pin, scryptCost: 2 ** 10 });
    assert.match(fromServer.kdfSalt, /^n10:/);
  });

  test('a stored scrypt cost out of range is corrupted data, refused before scrypt runs, not a wrong PIN', async () => {
    const cheap = await sealSecret({ masterKey, secret, ownerId, address, pin, scryptCost: 2 ** 10 });
    for (const prefix of ['n9:', 'n21:', 'n99:']) {
      const sealed = { ...cheap, kdfSalt: prefix + cheap.kdfSalt.slice('n10:'.length) };
      await assert.rejects(openSecret({ masterKey, sealed, ownerId, address, pin }), (error) => !isWrongKey(error) && /stored scrypt cost 2\^\d+ is out of range/.test((error as Error).message));
    }
    await assert.rejects(sealSecret({ masterKey, secret, ownerId, address, pin, scryptCost: 3000 }), /not a power of two/);
  });

  test('the PIN and the master key are both needed', async () => {
    const sealed = await sealSecret({ masterKey, secret, ownerId, address, pin });
    await assert.rejects(openSecret({ masterKey: randomBytes(32), sealed, ownerId, address, pin }), isWrongKey);
    await assert.rejects(openSecret({ masterKey, sealed, ownerId, address }), isWrongKey);
  });

  test('server and pin protection do not open each other', async () => {
    const serverSealed = await sealSecret({ masterKey, secret, ownerId, address });
    await assert.rejects(openSecret({ masterKey, sealed: serverSealed, ownerId, address, pin }), isWrongKey);
    await assert.rejects(openSecret({ masterKey: randomBytes(32), sealed: serverSealed, ownerId, address }), isWrongKey);
  });

  test('the ciphertext is bound to its owner id and address', async () => {
    const sealed = await sealSecret({ masterKey, secret, ownerId, address, pin });
    await assert.rejects(openSecret({ masterKey, sealed, ownerId: 'partner-2', address, pin }), isWrongKey);
    await assert.rejects(openSecret({ masterKey, sealed, ownerId, address: '0x' + 'cd'.repeat(20), pin }), isWrongKey);
  });

  test('only lower-case 0x addresses are accepted, so "owner|address" splits one way only', async () => {
    await assert.rejects(sealSecret({ masterKey, secret, ownerId: 'a', address: 'b|c' }), /address/);
    await assert.rejects(sealSecret({ masterKey, secret, ownerId, address: address.toUpperCase() }), /address/);
  });

  test('a flipped bit in either ciphertext is detected', async () => {
    const sealed = await sealSecret({ masterKey, secret, ownerId, address });
    for (const field of ['encryptedSecret', 'wrappedDataKey'] as const) {
      const bytes = Buffer.from(sealed[field], 'base64');
      bytes[20] = (bytes[20] ?? 0) ^ 1;
      const tampered = { ...sealed, [field]: bytes.toString('base64') };
      await assert.rejects(openSecret({ masterKey, sealed: tampered, ownerId, address }), isWrongKey);
    }
  });

  test('every seal uses a fresh salt, data key and iv', async () => {
    const first = await sealSecret({ masterKey, secret, ownerId, address });
    const second = await sealSecret({ masterKey, secret, ownerId, address });
    assert.notEqual(first.kdfSalt, second.kdfSalt);
    assert.notEqual(first.wrappedDataKey, second.wrappedDataKey);
    assert.notEqual(first.encryptedSecret, second.encryptedSecret);
    // iv (12) + 32-byte secret + tag (16)
    assert.equal(Buffer.from(first.encryptedSecret, 'base64').length, 12 + 32 + 16);
  });

  test('rewrap: the old PIN stops working, the new one works, the secret ciphertext is untouched', async () => {
    const sealed = await sealSecret({ masterKey, secret, ownerId, address, pin });
    const rewrapped = await rewrapDataKey({ masterKey, sealed, oldPin: pin, newPin: otherPin });
    assert.notEqual(rewrapped.kdfSalt, sealed.kdfSalt);
    assert.deepEqual(Object.keys(rewrapped).sort(), ['kdfSalt', 'pinChangeCheck', 'wrappedDataKey']);
    const next = { ...rewrapped, encryptedSecret: sealed.encryptedSecret };
    await assert.rejects(openSecret({ masterKey, sealed: next, ownerId, address, pin }), isWrongKey);
    assert.deepEqual(Buffer.from(await openSecret({ masterKey, sealed: next, ownerId, address, pin: otherPin })), secret);
  });

  test('a PIN change check matches that change only (both PINs right, any case), also once the wrapping moved to another master key', async () => {
    const sealed = await sealSecret({ masterKey, secret, ownerId, address, pin });
    const { pinChangeCheck: check, ...next } = await rewrapDataKey({ masterKey, sealed, oldPin: pin, newPin: otherPin });
    const repeat = (oldPin: string, newPin: string, key = masterKey, wrapping = next) => isPinChangeRepeat({ masterKey: key, sealed: wrapping, check, oldPin, newPin });
    assert.equal(await repeat(pin, otherPin), true);
    assert.equal(await repeat(pin.toUpperCase(), otherPin.toUpperCase()), true);
    assert.equal(await repeat(sha256Hex('000000'), otherPin), false, 'a wrong old PIN');
    assert.equal(await repeat(pin, sha256Hex('000000')), false, 'a wrong new PIN');
    assert.equal(await repeat(otherPin, pin), false, 'the PINs swapped');
    assert.equal(await repeat(pin, otherPin, randomBytes(32)), false, 'another master key');
    const newMasterKey = randomBytes(32);
    const moved = await rewrapForMasterKey({ from: masterKey, to: newMasterKey, sealed: next, protection: 'pin' });
    assert.equal(await repeat(pin, otherPin, newMasterKey, moved), true);
    await assert.rejects(repeat(pin, otherPin, masterKey, moved), isWrongKey);
  });

  test('rewrap refuses a wrong old PIN', async () => {
    const sealed = await sealSecret({ masterKey, secret, ownerId, address, pin });
    await assert.rejects(rewrapDataKey({ masterKey, sealed, oldPin: otherPin, newPin: sha256Hex('111111') }), isWrongKey);
  });

  test('wrapServerDataKeyWithPin: a server sealing becomes a PIN sealing of the same secret ciphertext', async () => {
    const sealed = await sealSecret({ masterKey, secret, ownerId, address });
    const wrapped = await wrapServerDataKeyWithPin({ masterKey, sealed, pin });
    assert.deepEqual(Object.keys(wrapped).sort(), ['kdfSalt', 'wrappedDataKey']);
    assert.notEqual(wrapped.kdfSalt, sealed.kdfSalt);
    const next = { ...wrapped, encryptedSecret: sealed.encryptedSecret };
    assert.deepEqual(Buffer.from(await openSecret({ masterKey, sealed: next, ownerId, address, pin })), secret);
    await assert.rejects(openSecret({ masterKey, sealed: next, ownerId, address }), isWrongKey);
    await assert.rejects(openSecret({ masterKey, sealed: next, ownerId, address, pin: otherPin }), isWrongKey);
    await assert.rejects(wrapServerDataKeyWithPin({ masterKey, sealed: next, pin: otherPin }), isWrongKey, 'a PIN sealing is not a server one');
    await assert.rejects(wrapServerDataKeyWithPin({ masterKey: randomBytes(32), sealed, pin }), isWrongKey);
  });
});

test('a master key rotation moves server and pin keys without the PIN; the old key then opens nothing', async () => {
  const oldKey = new Uint8Array(32).fill(1);
  const newKey = new Uint8Array(32).fill(2);
  const secret = Buffer.alloc(32, 9);
  const address = `0x${'ab'.repeat(20)}`;
  for (const pin of [undefined, 'a1b2']) {
    const sealed = await sealSecret({ masterKey: oldKey, secret, ownerId: 'owner', address, pin });
    const moved = await rewrapForMasterKey({ from: oldKey, to: newKey, sealed, protection: pin ? 'pin' : 'server' });
    const twice = await rewrapForMasterKey({ from: newKey, to: oldKey, sealed: moved, protection: pin ? 'pin' : 'server' });
    for (const [key, wrapping] of [[newKey, moved], [oldKey, twice]] as const) {
      const opened = await openSecret({ masterKey: key, sealed: { ...wrapping, encryptedSecret: sealed.encryptedSecret }, ownerId: 'owner', address, pin });
      assert.deepEqual(opened, secret);
    }
    await assert.rejects(openSecret({ masterKey: oldKey, sealed: { ...moved, encryptedSecret: sealed.encryptedSecret }, ownerId: 'owner', address, pin }), WrongKeyError);
    if (pin) await assert.rejects(openSecret({ masterKey: newKey, sealed: { ...moved, encryptedSecret: sealed.encryptedSecret }, ownerId: 'owner', address, pin: 'ffff' }), WrongKeyError);
  }
});
