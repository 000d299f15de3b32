import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../app.ts';
import { sha256Hex } from '../../custody/passwords.ts';
import { sessionCookie } from '../../member-session/commands.ts';
import { buildUser } from '../../testing/factories.ts';
import { openTestApp, type TestApp, type TestServices } from '../../testing/test-services.ts';

const APP = { 'x-wallet-app': '1' };

/** Sessions in the HttpOnly cookie, CSRF-safe writes, the session list and sign-out everywhere. */
describe('wallet-app sessions', () => {
  let testApp: TestApp;
  let services: TestServices;
  let app: App;

  before(async () => {
    testApp = await openTestApp();
    ({ services, app } = testApp);
  });
  after(() => testApp?.cleanup());

  const signIn = async (member: { user: { email: string }; password: string }, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: '/v2/wallet-app/sessions', headers, payload: { email: member.user.email, password: sha256Hex(member.password) } });
  const cookieOf = (response: { headers: Record<string, unknown> }) => String(response.headers['set-cookie']).split(';')[0]!;

  test('who is signed in: the member with a live session; null, answered 200, without one or after it ended', async () => {
    const member = await buildUser(services);
    const current = (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/v2/wallet-app/sessions/current', headers });
    const none = await current({});
    assert.equal(none.statusCode, 200);
    assert.deepEqual(none.json(), { member: null });
    assert.deepEqual((await current({ cookie: 'wallet_session=' + 'x'.repeat(43) })).json(), { member: null }, 'an unknown cookie');
    const cookie = cookieOf(await signIn(member, APP));
    const signedIn = (await current({ cookie })).json();
    assert.equal(signedIn.member.email, member.user.email);
    assert.equal(signedIn.member.main_address, member.user.main_address);
    assert.equal((await app.inject({ method: 'DELETE', url: '/v2/wallet-app/sessions/current', headers: { cookie, ...APP } })).statusCode, 200);
    assert.deepEqual((await current({ cookie })).json(), { member: null }, 'a session that ended');
  });

  test('the wallet app gets an HttpOnly, SameSite=Lax cookie and no token; API clients keep the bearer token', async () => {
    const member = await buildUser(services);
    const viaApp = await signIn(member, { ...APP, 'user-agent': 'Phone browser' });
    assert.equal(viaApp.statusCode, 200, viaApp.body);
    assert.equal(viaApp.json().session_token, undefined, 'the script never sees the token');
    const setCookie = String(viaApp.headers['set-cookie']);
    assert.match(setCookie, /^wallet_session=[A-Za-z0-9_-]{43}; Max-Age=86\d{3}; Path=\/; HttpOnly; SameSite=Lax$/);
    assert.ok(!setCookie.includes('Secure'), 'plain http (development) cannot carry a Secure cookie');
    const me = await app.inject({ method: 'GET', url: '/v2/wallet-app/me', headers: { cookie: cookieOf(viaApp) } });
    assert.equal(me.json().email, member.user.email);

    const viaApi = await signIn(member);
    assert.equal(viaApi.headers['set-cookie'], undefined);
    const token = viaApi.json().session_token;
    const meByToken = await app.inject({ method: 'GET', url: '/v2/wallet-app/me', headers: { authorization: `Bearer ${token}` } });
    assert.equal(meByToken.json().email, member.user.email);
    const stored = await services.store.db.selectFrom('wallet_sessions').select(['token_hash', 'user_agent']).execute();
    assert.ok(!JSON.stringify(stored).includes(cookieOf(viaApp).split('=')[1]!), 'only the token hash is stored');
  });

  test('Secure on https', () => {
    assert.equal(sessionCookie({ token: 't', maxAgeSeconds: 60 }, true), 'wallet_session=t; Max-Age=60; Path=/; HttpOnly; SameSite=Lax; Secure');
    assert.equal(sessionCookie(undefined, true), 'wallet_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure');
  });

  test('a write riding on the cookie without X-Wallet-App is refused (4009, 403) and changes nothing', async () => {
    const member = await buildUser(services);
    const cookie = cookieOf(await signIn(member, APP));
    const forged = await app.inject({ method: 'DELETE', url: '/v2/wallet-app/sessions/current', headers: { cookie } });
    assert.deepEqual([forged.statusCode, forged.json()], [403, { code: 4009, err: 'cross-site request refused: the X-Wallet-App header is missing' }]);
    const pinChange = await app.inject({ method: 'PUT', url: '/v2/wallet-app/me/pin', headers: { cookie }, payload: { old_pin: sha256Hex(member.pin), new_pin: sha256Hex('111111') } });
    assert.equal(pinChange.json().code, 4009);
    assert.equal((await services.vault.unlock(member.user.key_id, member.pinHash)).address, member.user.main_address, 'the PIN did not change');
    const still = await app.inject({ method: 'GET', url: '/v2/wallet-app/me', headers: { cookie } });
    assert.equal(still.statusCode, 200, 'the session was not signed out');
    const signedOut = await app.inject({ method: 'DELETE', url: '/v2/wallet-app/sessions/current', headers: { cookie, ...APP } });
    assert.equal(signedOut.statusCode, 200);
    assert.match(String(signedOut.headers['set-cookie']), /^wallet_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax$/);
    assert.equal((await app.inject({ method: 'GET', url: '/v2/wallet-app/me', headers: { cookie } })).json().code, 402);
    assert.equal((await app.inject({ method: 'GET', url: '/v2/wallet-app/me' })).json().code, 4003);
  });

  test('the session list, signing out another session, then everywhere', async () => {
    const member = await buildUser(services);
    const other = await buildUser(services);
    const phone = cookieOf(await signIn(member, { ...APP, 'user-agent': 'Phone browser' }));
    const laptop = cookieOf(await signIn(member, { ...APP, 'user-agent': 'Laptop browser' }));
    const apiToken = (await signIn(member)).json().session_token as string;
    const otherCookie = cookieOf(await signIn(other, APP));
    const list = async (cookie: string) => (await app.inject({ method: 'GET', url: '/v2/wallet-app/sessions', headers: { cookie } })).json().sessions as Array<Record<string, unknown>>;

    const sessions = await list(phone);
    assert.equal(sessions.length, 3, 'only this member\'s sessions');
    assert.deepEqual(sessions.filter((session) => session.current).map((session) => session.user_agent), ['Phone browser']);
    const laptopSession = sessions.find((session) => session.user_agent === 'Laptop browser')!;
    assert.ok(Number(laptopSession.expires_at) > Number(laptopSession.created_at));

    const othersSession = (await list(otherCookie))[0]!;
    const notMine = await app.inject({ method: 'DELETE', url: `/v2/wallet-app/sessions/${othersSession.id}`, headers: { cookie: phone, ...APP } });
    assert.equal(notMine.json().code, 404, "another member's session cannot be ended");
    assert.equal((await app.inject({ method: 'GET', url: '/v2/wallet-app/me', headers: { cookie: otherCookie } })).statusCode, 200);

    const ended = await app.inject({ method: 'DELETE', url: `/v2/wallet-app/sessions/${laptopSession.id}`, headers: { cookie: phone, ...APP } });
    assert.equal(ended.statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/v2/wallet-app/me', headers: { cookie: laptop } })).json().code, 402);
    assert.equal((await list(phone)).length, 2);

    const everywhere = await app.inject({ method: 'DELETE', url: '/v2/wallet-app/sessions', headers: { cookie: phone, ...APP } });
    assert.deepEqual(everywhere.json(), { signed_out: 2 });
    assert.match(String(everywhere.headers['set-cookie']), /Max-Age=0/);
    assert.equal((await app.inject({ method: 'GET', url: '/v2/wallet-app/me', headers: { cookie: phone } })).json().code, 402);
    assert.equal((await app.inject({ method: 'GET', url: '/v2/wallet-app/me', headers: { authorization: `Bearer ${apiToken}` } })).json().code, 402);
    assert.equal((await app.inject({ method: 'GET', url: '/v2/wallet-app/me', headers: { cookie: otherCookie } })).statusCode, 200, 'other members stay signed in');
  });
});
