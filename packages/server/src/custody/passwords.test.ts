import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashPassword, sha256Hex, verifyPassword } from './passwords.ts';

describe('passwords', () => {
  const sent = sha256Hex('correct horse battery staple');

  test('sha256Hex is the lower-case hex SHA-256 of the UTF-8 text', () => {
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  test('the stored hash is self-describing and does not contain what was sent', async () => {
    const stored = await hashPassword(sent);
    assert.notEqual(stored, sent);
    assert.ok(!stored.toLowerCase().includes(sent));
    assert.match(stored, /^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    assert.notEqual(await hashPassword(sent), stored, 'each hash has its own salt');
  });

  test('verify accepts the password (in either hex case) and rejects another one', async () => {
    const stored = await hashPassword(sent);
    assert.equal(await verifyPassword(sent, stored), true);
    assert.equal(await verifyPassword(sent.toUpperCase(), stored), true);
    assert.equal(await verifyPassword(sha256Hex('wrong'), stored), false);
  });

  test('a hash made with another scrypt cost records it, and verifies by it', async () => {
    const cheap = await hashPassword(sent, 2 ** 10);
    assert.match(cheap, /^scrypt\$1024\$8\$1\$/);
    assert.equal(await verifyPassword(sent, cheap), true);
    assert.equal(await verifyPassword(sha256Hex('wrong'), cheap), false);
    await assert.rejects(hashPassword(sent, 1000), /not a power of two/);
    await assert.rejects(hashPassword(sent, 2 ** 9), /not a power of two from 2\^10/);
  });

  test('a stored value that is not a hash of this service is an error, not a mismatch', async () => {
    await assert.rejects(verifyPassword(sent, sent));
    await assert.rejects(verifyPassword(sent, 'scrypt$1073741824$8$1$AAAAAAAAAAA=$AAAAAAAAAAAAAAAAAAAAAA=='));
  });
});
