import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { App } from '../../app.ts';
import { AppError } from '../../errors/app-error.ts';
import { sha256Hex } from '../../custody/passwords.ts';
import { unlockPartnerPin } from '../../partners/commands.ts';
import { openTestApp, type TestServices } from '../../testing/test-services.ts';
import { signedInPartner, signInToken } from '../testing/partner-session.ts';
import { withoutMessage } from '../../testing/responses.ts';

let services: TestServices;
let app: App;

before(async () => {
  ({ services, app } = await openTestApp({ partnerApi: { rateLimit: { max: 100_000, timeWindowMs: 60_000 } } }));
});
after(async () => {
  await app?.close();
  await services?.cleanup();
});

function changePassword(token: string, body: Record<string, unknown>, url = '/v2/partner/?opt=password') {
  return app.inject({ method: 'PUT', url, headers: { authorization: token }, payload: body });
}

function changePin(token: string, body: Record<string, unknown>) {
  return app.inject({ method: 'PUT', url: '/v2/partner/pin', headers: { authorization: token }, payload: body });
}

const badRequest = { code: 400, err: 'bad request' };

/** Rejects with the AppError code of a vault unlock, or resolves to the unlocked address. */
async function unlockWith(keyId: string, pinHash: string): Promise<string | number> {
  try {
    return (await services.vault.unlock(keyId, pinHash)).address;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}

describe('A2 PUT /v2/partner/?opt=password', () => {
  test('changes the password, ends earlier tokens (4044) and the old password (4004)', async () => {
    const built = await signedInPartner(app, services);
    const newPassword = sha256Hex('a brand new password');
    const response = await changePassword(built.token, { old_password: built.passwordHash, new_password: newPassword });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), {});

    const again = await changePassword(built.token, { old_password: newPassword, new_password: sha256Hex('third') });
    assert.equal(again.statusCode, 401);
    assert.deepEqual(again.json(), { code: 4044, err: 'access token does not exist' });

    const oldSignIn = await app.inject({ method: 'POST', url: '/v2/partner/auth', payload: { email: built.partner.email, password: built.passwordHash } });
    assert.deepEqual(oldSignIn.json(), { code: 4004, err: 'invalid password' });
    const fresh = await signInToken(app, built.partner.email, newPassword);
    // The path without the trailing slash is the same call.
    const back = await changePassword(fresh, { old_password: newPassword, new_password: built.passwordHash }, '/v2/partner?opt=password');
    assert.equal(back.statusCode, 200, back.body);
  });

  test('wrong old password 4004, same value 4007, malformed or without opt=password 400', async () => {
    const built = await signedInPartner(app, services);
    const wrong = await changePassword(built.token, { old_password: sha256Hex('wrong'), new_password: sha256Hex('new') });
    assert.equal(wrong.statusCode, 401);
    assert.deepEqual(wrong.json(), { code: 4004, err: 'invalid password' });

    const same = await changePassword(built.token, { old_password: built.passwordHash, new_password: built.passwordHash.toUpperCase() });
    assert.equal(same.statusCode, 400);
    assert.deepEqual(same.json(), { code: 4007, err: 'not allow the same code as before' });

    for (const [url, body] of [
      ['/v2/partner/?opt=password', { old_password: built.passwordHash }],
      ['/v2/partner/?opt=password', { old_password: built.passwordHash, new_password: 'plain text' }],
      ['/v2/partner/?opt=password', { old_password: 'short', new_password: sha256Hex('n') }],
      ['/v2/partner/', { old_password: built.passwordHash, new_password: sha256Hex('n') }],
      ['/v2/partner/?opt=pin', { old_password: built.passwordHash, new_password: sha256Hex('n') }],
    ] as const) {
      const response = await changePassword(built.token, body, url);
      assert.equal(response.statusCode, 400, `${url} ${JSON.stringify(body)}`);
      assert.deepEqual(withoutMessage(response.json()), badRequest);
    }
    // None of that changed anything: the token still works and the password is the same.
    await signInToken(app, built.partner.email, built.passwordHash);
  });

  test('the store never holds a password or PIN value a client sent', async () => {
    const built = await signedInPartner(app, services);
    const newPassword = sha256Hex('yet another password');
    const newPin = sha256Hex('246810');
    assert.equal((await changePassword(built.token, { old_password: built.passwordHash, new_password: newPassword })).statusCode, 200);
    const token = await signInToken(app, built.partner.email, newPassword);
    assert.equal((await changePin(token, { old_pin: built.pinHash, new_pin: newPin })).statusCode, 200);
    await changePassword(token, { old_password: sha256Hex('wrong guess'), new_password: sha256Hex('x') });

    const sent = [built.passwordHash, newPassword, built.pinHash, newPin, sha256Hex('wrong guess')];
    const forms = sent.flatMap((hex) => [hex, hex.toUpperCase(), Buffer.from(hex, 'hex').toString('base64'), Buffer.from(hex, 'utf8').toString('base64')]);
    const tables = ['partners', 'signing_keys', 'sign_in_failures', 'service_settings', 'uploaded_files'];
    for (const table of tables) {
      const rows = await sql`select * from ${sql.table(table)}`.execute(services.store.db);
      const dump = JSON.stringify(rows.rows);
      for (const value of forms) assert.ok(!dump.includes(value), `${table} holds a value a client sent`);
    }
    const row = await services.store.db.selectFrom('partners').select('password_hash').where('id', '=', built.partner.id).executeTakeFirstOrThrow();
    assert.match(row.password_hash, /^scrypt\$/);
  });
});

describe('A3 PUT /v2/partner/pin', () => {
  test('re-wraps the signing key: the old PIN no longer signs, the new one does, the key itself is untouched', async () => {
    const built = await signedInPartner(app, services);
    const before = await services.store.db.selectFrom('signing_keys').selectAll().where('id', '=', built.partner.key_id).executeTakeFirstOrThrow();
    const newPin = sha256Hex('135790');
    const response = await changePin(built.token, { old_pin: built.pinHash, new_pin: newPin.toUpperCase() });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), {});

    const after = await services.store.db.selectFrom('signing_keys').selectAll().where('id', '=', built.partner.key_id).executeTakeFirstOrThrow();
    assert.equal(after.encrypted_secret, before.encrypted_secret);
    assert.notEqual(after.wrapped_data_key, before.wrapped_data_key);
    assert.notEqual(after.kdf_salt, before.kdf_salt);
    assert.equal(await unlockWith(built.partner.key_id, built.pinHash), 4006);
    assert.equal(await unlockWith(built.partner.key_id, newPin), built.partner.main_address);
  });

  test('wrong old PIN 4006, same value 4007, malformed 400', async () => {
    const built = await signedInPartner(app, services);
    const wrong = await changePin(built.token, { old_pin: sha256Hex('000000'), new_pin: sha256Hex('111111') });
    assert.equal(wrong.statusCode, 401);
    assert.deepEqual(wrong.json(), { code: 4006, err: 'invalid pin code' });
    const same = await changePin(built.token, { old_pin: built.pinHash, new_pin: built.pinHash });
    assert.equal(same.statusCode, 400);
    assert.deepEqual(same.json(), { code: 4007, err: 'not allow the same code as before' });
    for (const body of [
      { old_pin: built.pinHash },
      { old_pin: '123456', new_pin: sha256Hex('1') },
      { old_pin: built.pinHash, new_pin: `${sha256Hex('1').slice(0, 63)}g` },
      { old_pin: built.pinHash, new_pin: 123456 },
    ]) {
      const response = await changePin(built.token, body);
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.deepEqual(withoutMessage(response.json()), badRequest);
    }
    // One wrong PIN was counted; a successful change starts the count again.
    assert.equal(await services.vault.pinFailures(built.partner.key_id), 1);
    assert.equal((await changePin(built.token, { old_pin: built.pinHash, new_pin: sha256Hex('222222') })).statusCode, 200);
    assert.equal(await services.vault.pinFailures(built.partner.key_id), 0);
  });

  test('20 wrong PINs at once: exactly 5 counted, four 4006 then 403, signing locked until the operator unlocks', async () => {
    const built = await signedInPartner(app, services);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) => changePin(built.token, { old_pin: sha256Hex(`wrong ${index}`), new_pin: sha256Hex('999999') })),
    );
    const bodies = responses.map((response) => ({ status: response.statusCode, body: response.json() }));
    const invalidPin = bodies.filter((answer) => answer.body.code === 4006);
    const locked = bodies.filter((answer) => answer.body.code === 403);
    assert.equal(invalidPin.length + locked.length, 20, JSON.stringify(bodies));
    assert.equal(invalidPin.length, 4);
    assert.equal(locked.length, 16);
    for (const answer of invalidPin) assert.deepEqual(answer, { status: 401, body: { code: 4006, err: 'invalid pin code' } });
    for (const answer of locked) assert.deepEqual(answer, { status: 400, body: { code: 403, err: 'exceed pin code error count' } });
    assert.equal(await services.vault.pinFailures(built.partner.key_id), 5);

    // Locked: even the right PIN neither signs nor changes the PIN (the count stays at 5).
    assert.equal(await unlockWith(built.partner.key_id, built.pinHash), 403);
    const change = await changePin(built.token, { old_pin: built.pinHash, new_pin: sha256Hex('999999') });
    assert.deepEqual({ status: change.statusCode, body: change.json() }, { status: 400, body: { code: 403, err: 'exceed pin code error count' } });
    assert.equal(await services.vault.pinFailures(built.partner.key_id), 5);

    // `wallet-service partner unlock --email E` runs this command.
    await unlockPartnerPin(services, built.partner.email);
    assert.equal(await unlockWith(built.partner.key_id, built.pinHash), built.partner.main_address);
  });
});
