import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { AppError } from '../errors/app-error.ts';
import { assertStrongPassword, assertStrongPasswordHash, assertStrongPin, assertStrongPinHash } from './secret-strength.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The code and detail an assertion throws, or 'strong'. */
function verdict(check: () => void): string {
  try {
    check();
    return 'strong';
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return `${error.code}: ${error.detail}`;
  }
}

describe('secret strength', () => {
  test('weak PINs: repeats, runs, short repeated groups, the common list, the birth date', () => {
    for (const pin of ['000000', '111111', '999999', '123456', '654321', '345678', '121212', '123123', '112233', '147258']) {
      assert.match(verdict(() => assertStrongPin(pin)), /^4010: the PIN /, pin);
      assert.match(verdict(() => assertStrongPinHash(sha256(pin))), /^4010: the PIN /, `${pin} as a hash`);
    }
    for (const pin of ['880412', '120488', '041288', '198804']) {
      assert.match(verdict(() => assertStrongPin(pin, { birth: '1988-04-12' })), /birth date/, pin);
      assert.match(verdict(() => assertStrongPinHash(sha256(pin), { birth: '1988-04-12' })), /birth date/, pin);
      assert.equal(verdict(() => assertStrongPinHash(sha256(pin))), 'strong', `${pin} is only weak for that birth date`);
    }
  });

  test('PINs that are not a pattern pass, as plaintext and as a hash', () => {
    for (const pin of ['246810', '135790', '582016', '901734', '864200']) {
      assert.equal(verdict(() => assertStrongPin(pin, { birth: '1990-05-17' })), 'strong', pin);
      assert.equal(verdict(() => assertStrongPinHash(sha256(pin), { birth: '1990-05-17' })), 'strong', pin);
    }
  });

  test('weak passwords: short, common, the e-mail or the name; each says why', () => {
    const person = { email: 'dana.lee@example.com', name: 'Dana Lee' };
    assert.equal(verdict(() => assertStrongPassword('abc123', person)), '4011: the password is shorter than 8 characters');
    assert.equal(verdict(() => assertStrongPassword('Password', person)), '4011: the password is one of the most common passwords');
    assert.equal(verdict(() => assertStrongPassword('my dana.lee secret', person)), '4011: the password contains your e-mail address');
    assert.equal(verdict(() => assertStrongPassword('Dana2024!!', person)), '4011: the password contains your name');
    assert.equal(verdict(() => assertStrongPassword('correct horse battery', person)), 'strong');
    assert.match(verdict(() => assertStrongPasswordHash(sha256('password'))), /most common passwords/);
    assert.match(verdict(() => assertStrongPasswordHash(sha256('PASSWORD'))), /most common passwords/);
    assert.match(verdict(() => assertStrongPasswordHash(sha256('dana.lee@example.com'), person)), /^4011: /);
    assert.match(verdict(() => assertStrongPasswordHash(sha256('Dana Lee'), person)), /shorter than 8|your name/);
    assert.equal(verdict(() => assertStrongPasswordHash(sha256('correct horse battery'), person)), 'strong');
  });
});
