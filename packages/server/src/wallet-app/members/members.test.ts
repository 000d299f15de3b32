import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../app.ts';
import { sha256Hex } from '../../custody/passwords.ts';
import { AppError } from '../../errors/app-error.ts';
import { Errors, type ErrorCode } from '../../errors/codes.ts';
import { resolvePeople } from '../../people/index.ts';
import { freshPhone, typedPhone } from '../../people/test-support.ts';
import { buildUser } from '../../testing/factories.ts';
import { openTestApp, type TestApp, type TestServices } from '../../testing/test-services.ts';
import { unlockMemberPin } from '../../users/commands.ts';
import { derivedIdentity, type IdentityVerifier } from './identity.ts';

const APP = { 'x-wallet-app': '1' };

/** Sign-up (410-414, 430-435, the reserved wallet), the PIN's state and PIN change. */
describe('wallet-app members', () => {
  let testApp: TestApp;
  let services: TestServices;
  let app: App;

  before(async () => {
    testApp = await openTestApp();
    ({ services, app } = testApp);
  });
  after(() => testApp?.cleanup());
  /** Runs with another identity check, then puts the default back. */
  const withIdentity = async <T>(identity: IdentityVerifier, run: () => Promise<T>): Promise<T> => {
    services.identity = identity;
    try {
      return await run();
    } finally {
      services.identity = derivedIdentity;
    }
  };

  const person = (overrides: Record<string, string> = {}) => ({
    name: `Member ${randomUUID().slice(0, 8).replace(/\d/g, 'x')}`,
    phone: freshPhone(),
    email: `member-${randomUUID()}@example.com`,
    password: sha256Hex('a long password'),
    birth: '1990-05-17',
    pin: sha256Hex('246810'),
    ...overrides,
  });
  const signUp = (body: object, headers: Record<string, string> = APP) => app.inject({ method: 'POST', url: '/v2/wallet-app/members', headers, payload: body });
  const memberCount = async () => Number((await services.store.db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const refusals = async (body: object, code: number) => {
    const before = await memberCount();
    const response = await signUp(body);
    assert.equal(response.json().code, code, response.body);
    assert.equal(response.statusCode, 400);
    assert.equal(response.headers['set-cookie'], undefined);
    assert.equal(await memberCount(), before, 'nothing kept');
  };

  test('sign-up signs the member in (cookie), keeps the derived ci and the non-EVM addresses', async () => {
    const body = person();
    const response = await signUp(body);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().session_token, undefined);
    assert.equal(response.json().member.email, body.email);
    const cookie = String(response.headers['set-cookie']).split(';')[0]!;
    assert.match(String(response.headers['set-cookie']), /HttpOnly; SameSite=Lax/);
    const home = (await app.inject({ method: 'GET', url: '/v2/wallet-app/home', headers: { cookie } })).json();
    assert.match(home.other_chains.bitcoin, /^bc1q/);
    assert.match(home.other_chains.tron, /^T/);
    assert.match(home.other_chains.xrpl, /^r/);
    const row = await services.store.db.selectFrom('users').selectAll().where('email', '=', body.email).executeTakeFirstOrThrow();
    assert.equal(row.ci, (await derivedIdentity.verify({ name: row.name, phone: row.phone, birth: body.birth })).ci);
    assert.equal((await services.vault.unlock(row.key_id, body.pin)).address, row.main_address, 'the PIN unlocks the wallet');
    const apiClient = await signUp(person(), {});
    assert.match(apiClient.json().session_token, /^[A-Za-z0-9_-]{43}$/, 'an API client gets the bearer token');
  });

  test('410 birth invalid, 411 under 19, 413 e-mail taken, 412 same name and phone: nothing kept', async () => {
    const existing = await buildUser(services);
    await refusals(person({ birth: '1990-02-30' }), 410);
    await refusals(person({ birth: 'yesterday' }), 410);
    const seventeen = new Date(Date.now() - 17 * 365.25 * 86_400_000).toISOString().slice(0, 10);
    await refusals(person({ birth: seventeen }), 411);
    await refusals(person({ email: existing.user.email.toUpperCase() }), 413);
    await refusals(person({ name: ` ${existing.user.name} `, phone: existing.user.phone }), 412);
    await refusals(person({ phone: 'not a phone' }), 400);
  });

  test('4010 a weak PIN and 4011 a weak password at sign-up, with what is wrong: nothing kept', async () => {
    const weak = async (body: object, code: number, message: RegExp) => {
      const before = await memberCount();
      const response = await signUp(body);
      assert.deepEqual([response.statusCode, response.json().code], [400, code], response.body);
      assert.match(response.json().message, message);
      assert.equal(await memberCount(), before, 'nothing kept');
    };
    await weak(person({ pin: sha256Hex('111111') }), 4010, /one digit repeated/);
    await weak(person({ pin: sha256Hex('123456') }), 4010, /run of digits/);
    await weak(person({ pin: sha256Hex('654321').toUpperCase() }), 4010, /run of digits/);
    await weak(person({ pin: sha256Hex('121212') }), 4010, /group of digits repeated/);
    await weak(person({ pin: sha256Hex('112233') }), 4010, /most common PINs/);
    await weak(person({ pin: sha256Hex('900517') }), 4010, /birth date/);
    await weak(person({ password: sha256Hex('password') }), 4011, /most common passwords/);
    await weak(person({ password: sha256Hex('Password1') }), 4011, /most common passwords/);
    const email = `quentin-${randomUUID().slice(0, 8)}@example.com`;
    await weak(person({ email, password: sha256Hex(email.split('@')[0]!) }), 4011, /e-mail address/);
    await weak(person({ name: 'Quentin Marlowe', password: sha256Hex('Quentin Marlowe') }), 4011, /your name/);
  });

  test('414 while a card to this person is being minted (the invite waits for its wallet)', async () => {
    const body = person();
    await services.store.db
      .insertInto('person_invites')
      .values({ id: randomUUID(), partner_id: 'partner-x', phone: body.phone, name: body.name, reserved_wallet_id: null, created_at: Math.floor(Date.now() / 1000), sent_at: null, quota_charges: null, used_at: null })
      .execute();
    await refusals(body, 414);
  });

  test('430 a ci that is a member\'s, 435 no ci, 431 to 434 from the identity check', async () => {
    const first = person();
    await withIdentity({ verify: async () => ({ ci: `ci-${first.email}` }) }, async () => {
      assert.equal((await signUp(first)).statusCode, 200);
      await refusals(person(), 430);
    });
    await withIdentity({ verify: async () => ({ ci: '' }) }, () => refusals(person(), 435));
    for (const code of [Errors.InconsistentCi, Errors.MessengerCiCheckFailed, Errors.MessengerNameCheckFailed, Errors.MessengerPhoneCheckFailed] as ErrorCode[]) {
      await withIdentity({ verify: async () => { throw new AppError(code); } }, () => refusals(person(), code));
    }
    await refusals(person({ name: 'R2 D2' }), 433);
  });

  test('a person sent cards by name and phone signs up: the reserved wallet is theirs, the invite used', async () => {
    const phone = freshPhone();
    const resolution = await resolvePeople(services, { partnerId: `partner-${randomUUID()}`, people: [{ name: 'Hana Kim', phone }] });
    const wallet = resolution.recipients[0]!;
    const response = await signUp(person({ name: 'Hana  Kim', phone: typedPhone(phone) }));
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().member.main_address, wallet.address);
    const invites = await services.store.db.selectFrom('person_invites').selectAll().where('phone', '=', phone).execute();
    assert.equal(invites.length, 1);
    assert.ok(invites[0]!.used_at, 'the invite is marked used');
    const reserved = await services.store.db.selectFrom('reserved_wallets').selectAll().where('id', '=', wallet.reservedWalletId!).executeTakeFirstOrThrow();
    assert.ok(reserved.claimed_user_id);
  });

  test('PIN state and change: 4006 wrong PIN (counted), 4007 same PIN, locked after five (403) until `user unlock`', async () => {
    const member = await buildUser(services, { pin: '135790' });
    const token = (await app.inject({ method: 'POST', url: '/v2/wallet-app/sessions', payload: { email: member.user.email, password: sha256Hex(member.password) } })).json().session_token;
    const headers = { authorization: `Bearer ${token}` };
    const state = async () => (await app.inject({ method: 'GET', url: '/v2/wallet-app/me/pin', headers })).json();
    const change = (oldPin: string, newPin: string) =>
      app.inject({ method: 'PUT', url: '/v2/wallet-app/me/pin', headers, payload: { old_pin: sha256Hex(oldPin), new_pin: sha256Hex(newPin) } });
    assert.deepEqual(await state(), { failures: 0, max_failures: 5, locked: false });
    const weakNew = await change('135790', '111111');
    assert.deepEqual([weakNew.statusCode, weakNew.json().code], [400, 4010]);
    assert.match(weakNew.json().message, /one digit repeated/);
    assert.deepEqual(await state(), { failures: 0, max_failures: 5, locked: false }, 'a weak new PIN costs no attempt');
    assert.equal((await change('000000', '192837')).json().code, 4006);
    assert.equal((await state()).failures, 1);
    assert.equal((await change('135790', '135790')).json().code, 4007);
    assert.equal((await change('135790', '582016')).statusCode, 200);
    assert.equal((await services.vault.unlock(member.user.key_id, sha256Hex('582016'))).address, member.user.main_address);
    for (let attempt = 0; attempt < 5; attempt += 1) await change('999999', '271828');
    assert.deepEqual(await state(), { failures: 5, max_failures: 5, locked: true });
    const locked = await change('582016', '271828');
    assert.equal(locked.json().code, 403, 'locked even with the right PIN');
    await unlockMemberPin(services, member.user.email);
    assert.equal((await state()).locked, false);
    assert.equal((await change('582016', '604918')).statusCode, 200);
  });

  test('a phone written as people write it, with its region (phone_country), is kept in E.164; the regions the app offers', async () => {
    const digits = String(20_000_000 + ((process.pid * 104_729) % 79_999_999)).slice(0, 8);
    const body = person({ phone: `010-${digits.slice(0, 4)}-${digits.slice(4)}`, phone_country: 'KR' });
    const response = await signUp(body);
    assert.equal(response.statusCode, 200, response.body);
    const kept = await services.store.db.selectFrom('users').select('phone').where('email', '=', body.email).executeTakeFirstOrThrow();
    assert.equal(kept.phone, `+8210${digits}`);
    await refusals(person({ phone: '010-1234-5678' }), 400);
    await refusals(person({ phone: '010-12', phone_country: 'KR' }), 400);
    await refusals(person({ phone: '010-1234-5678', phone_country: 'XX' }), 400);

    const regions = await app.inject({ method: 'GET', url: '/v2/wallet-app/phone-countries' });
    assert.equal(regions.statusCode, 200);
    const answer = regions.json() as { default_country: string; countries: Array<{ country: string; calling_code: string }> };
    assert.equal(answer.default_country, services.config.phoneDefaultCountry);
    assert.deepEqual(answer.countries.find((entry) => entry.country === 'KR'), { country: 'KR', calling_code: '82' });
    assert.ok(answer.countries.length > 200, `${answer.countries.length} regions`);
  });
});
