import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { App } from '../../app.ts';
import { sha256Hex } from '../../custody/passwords.ts';
import { openTestApp, type TestServices } from '../../testing/test-services.ts';
import { buildApprovedPartner, buildPartner } from '../../testing/factories.ts';
import { withoutMessage } from '../../testing/responses.ts';

let services: TestServices;
let app: App;

before(async () => {
  ({ services, app } = await openTestApp({
    partnerApi: {
      rateLimit: { max: 100_000, timeWindowMs: 60_000 },
      signInThrottle: { addressFreeFailures: 3, accountFreeFailures: 5, baseDelayMs: 400, maxDelayMs: 1_600, windowMs: 60_000 },
    },
  }));
});
after(async () => {
  await app?.close();
  await services?.cleanup();
});

function signIn(email: string, password: string, remoteAddress: string) {
  return app.inject({ method: 'POST', url: '/v2/partner/auth', payload: { email, password }, remoteAddress });
}

describe('A1 POST /v2/partner/auth', () => {
  test('an approved partner gets its account object with a 24-hour HS256 token', async () => {
    const built = await buildApprovedPartner(services, { mintLimit: 250 });
    // E-mails are matched without regard to case or surrounding spaces.
    const response = await signIn(` ${built.partner.email.toUpperCase()} `, built.passwordHash, '10.1.0.1');
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    const row = await services.store.db.selectFrom('partners').selectAll().where('id', '=', built.partner.id).executeTakeFirstOrThrow();
    assert.deepEqual(Object.keys(body).sort(), [
      'access_token', 'contract_address', 'email', 'main_address', 'mint_count', 'mint_limit', 'name', 'phone', 'service_name', 'status',
    ]);
    assert.deepEqual({ ...body, access_token: undefined }, {
      email: row.email,
      main_address: row.main_address,
      contract_address: row.contract_address,
      name: 'Example Partner Ltd',
      phone: row.phone,
      service_name: 'Example Cards',
      access_token: undefined,
      status: 1,
      mint_limit: 250,
      mint_count: 0,
    });
    assert.match(body.contract_address, /^0x[0-9a-fA-F]{40}$/);
    // kid: the public id of the master key the token was signed under (partner-auth/token-keys.ts).
    const { kid, ...header } = decodeProtectedHeader(body.access_token);
    assert.deepEqual(header, { alg: 'HS256', typ: 'JWT' });
    assert.equal(kid, services.vault.masterKeyId);
    const claims = decodeJwt(body.access_token);
    assert.equal(claims.sub, built.partner.id);
    assert.equal(claims.iss, services.config.publicUrl);
    assert.equal(claims.aud, 'wallet-service:partner');
    assert.equal(claims.ver, 0);
    assert.equal(claims.exp! - claims.iat!, 24 * 60 * 60);
    assert.ok(Math.abs(claims.iat! - Date.now() / 1000) < 60);
  });

  test('a malformed body answers 400', async () => {
    const built = await buildPartner(services);
    for (const payload of [
      { email: built.partner.email },
      { password: built.passwordHash },
      { email: built.partner.email, password: 'secret' },
      { email: built.partner.email, password: `${built.passwordHash}0` },
      { email: built.partner.email, password: 12345 },
    ]) {
      const response = await app.inject({ method: 'POST', url: '/v2/partner/auth', payload, remoteAddress: '10.1.1.1' });
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.deepEqual(withoutMessage(response.json()), { code: 400, err: 'bad request' });
      assert.match(response.json().message, /^body/, JSON.stringify(payload));
    }
    const notJson = await app.inject({
      method: 'POST', url: '/v2/partner/auth', payload: '{"email":', headers: { 'content-type': 'application/json' }, remoteAddress: '10.1.1.1',
    });
    assert.equal(notJson.statusCode, 400);
    assert.deepEqual(withoutMessage(notJson.json()), { code: 400, err: 'bad request' });
    assert.match(notJson.json().message, /JSON/);
  });

  test('an unknown e-mail answers 406 and a wrong password 4004', async () => {
    const built = await buildApprovedPartner(services);
    const unknown = await signIn('nobody@example.com', built.passwordHash, '10.1.2.1');
    assert.equal(unknown.statusCode, 401);
    assert.deepEqual(unknown.json(), { code: 406, err: 'not found user info in db' });
    const wrong = await signIn(built.partner.email, sha256Hex('not the password'), '10.1.2.2');
    assert.equal(wrong.statusCode, 401);
    assert.deepEqual(wrong.json(), { code: 4004, err: 'invalid password' });
  });

  test('each account status has its code, after the password check; approved without contract 4005', async () => {
    const cases: Array<[number, number, string]> = [
      [20, 425, 'not yet approved'],
      [421, 421, 'banned accounts cannot login'],
      [422, 422, 'suspended accounts cannot login'],
      [423, 423, 'the account has been unsubscribed'],
      [7, 424, 'undefined status'],
      [1, 4005, 'account does not have a contract address'],
    ];
    for (const [status, code, err] of cases) {
      const built = await buildPartner(services);
      await services.store.db.updateTable('partners').set({ status }).where('id', '=', built.partner.id).execute();
      const response = await signIn(built.partner.email, built.passwordHash, '10.1.3.1');
      assert.equal(response.statusCode, 401, `status ${status}`);
      assert.deepEqual(response.json(), { code, err });
      // A wrong password is told apart before the status: the status is not disclosed to a guesser.
      const guess = await signIn(built.partner.email, sha256Hex('guess'), `10.1.3.${status + 10}`);
      assert.deepEqual(guess.json(), { code: 4004, err: 'invalid password' });
    }
  });
});

describe('wrong-password back-off (kept in the store)', () => {
  test('an address that guessed wrong too often waits (4008, Retry-After); other addresses do not', async () => {
    const built = await buildApprovedPartner(services);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const response = await signIn(built.partner.email, sha256Hex(`guess ${attempt}`), '10.2.0.1');
      assert.deepEqual(response.json(), { code: 4004, err: 'invalid password' });
    }
    const waiting = await signIn(built.partner.email, built.passwordHash, '10.2.0.1');
    assert.equal(waiting.statusCode, 429);
    assert.deepEqual(waiting.json(), { code: 4008, err: 'too many wrong passwords, try again later' });
    assert.equal(waiting.headers['retry-after'], '1');
    // The owner elsewhere is not affected: the account has not reached its own limit.
    const owner = await signIn(built.partner.email, built.passwordHash, '10.2.0.2');
    assert.equal(owner.statusCode, 200);
  });

  test('wrong passwords sent at once from one address are checked in turn: those past the free ones wait (4008)', async () => {
    const built = await buildApprovedPartner(services);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, attempt) => signIn(built.partner.email, sha256Hex(`burst ${attempt}`), '10.2.2.1')));
    const codes = answers.map((answer) => answer.json().code);
    // Three free failures; a fourth or fifth only if the machine stalled past a wait (400 ms, then 800 ms).
    const checked = codes.filter((code) => code === 4004).length;
    assert.ok(checked >= 3 && checked <= 5, codes.join(','));
    assert.equal(codes.filter((code) => code === 4008).length, 8 - checked, codes.join(','));
  });

  test('guessing e-mails counts against the address', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const response = await signIn(`ghost-${attempt}@example.com`, sha256Hex('x'), '10.2.1.1');
      assert.deepEqual(response.json(), { code: 406, err: 'not found user info in db' });
    }
    const waiting = await signIn('ghost-3@example.com', sha256Hex('x'), '10.2.1.1');
    assert.equal(waiting.statusCode, 429);
    assert.deepEqual(waiting.json(), { code: 4008, err: 'too many wrong passwords, try again later' });
  });

  test('an account guessed at from many addresses is never locked: each guesser waits, with a growing but bounded delay, and the owner gets in', async () => {
    const built = await buildApprovedPartner(services);
    const login = built.partner.email.toLowerCase();
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const response = await signIn(built.partner.email, sha256Hex(`guess ${attempt}`), `10.3.0.${attempt + 1}`);
      assert.deepEqual(response.json(), { code: 4004, err: 'invalid password' });
    }
    const owner = await signIn(built.partner.email, built.passwordHash, '10.3.1.1');
    assert.equal(owner.statusCode, 200, 'the owner from another address is not locked out');

    // One address guessing at the account: past addressAccountFreeFailures (5 by default, but the address's 3 come first here)
    // each failure doubles its wait, up to maxDelayMs.
    const scope = 'address:10.3.2.1';
    for (let attempt = 0; attempt < 3; attempt += 1) await signIn(built.partner.email, sha256Hex(`first ${attempt}`), '10.3.2.1');
    const delays: number[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await waitUntilAllowed(scope);
      const response = await signIn(built.partner.email, sha256Hex(`again ${attempt}`), '10.3.2.1');
      assert.deepEqual(response.json(), { code: 4004, err: 'invalid password' });
      const row = await services.store.db.selectFrom('sign_in_failures').selectAll().where('scope', '=', scope).executeTakeFirstOrThrow();
      delays.push(Number(row.blocked_until_ms) - Number(row.last_failure_ms));
    }
    assert.deepEqual(delays, [800, 1_600, 1_600]);
    const blocked = await signIn(built.partner.email, built.passwordHash, '10.3.2.1');
    assert.deepEqual([blocked.statusCode, blocked.json().code], [429, 4008], 'the guesser waits even with the right password');
    const ownerAgain = await signIn(built.partner.email, built.passwordHash, '10.3.3.1');
    assert.equal(ownerAgain.statusCode, 200, ownerAgain.body);
    const pair = await services.store.db.selectFrom('sign_in_failures').select('scope').where('scope', 'in', [`pair:10.3.3.1|${login}`, `account:${built.partner.id}`]).execute();
    assert.deepEqual(pair, [], "a right password clears the login's and the account's counts");
  });
});

async function waitUntilAllowed(scope: string): Promise<void> {
  const row = await services.store.db.selectFrom('sign_in_failures').select('blocked_until_ms').where('scope', '=', scope).executeTakeFirstOrThrow();
  const wait = Number(row.blocked_until_ms) - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 20));
}
