import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import vm from 'node:vm';
import { after, before, describe, test } from 'node:test';
import type { App } from '../app.ts';
import { sha256Hex } from '../custody/passwords.ts';
import { openTestApp, type TestApp, type TestServices } from '../testing/test-services.ts';
import { encodeFunctionData } from 'viem';
import { cardNftAbi } from '@wallet-service/contracts';
import { BAPP, mintCards, openAs, prepareKey, result, signedInMember, walletApp } from '../a2a/test-support.ts';
import { WALLET_PAGE_SCRIPT } from './page.ts';

/** The wallet-app API: sessions, and what the member sees before approving. */
describe('wallet-app API', () => {
  let testApp: TestApp;
  let services: TestServices;
  let app: App;

  before(async () => {
    testApp = await openTestApp();
    ({ services, app } = testApp);
  });
  after(() => testApp?.cleanup());

  test('sign-in: 406 unknown e-mail, 4004 wrong password, a session for the right one', async () => {
    const member = await signedInMember(app, services);
    const signIn = (email: string, password: string) =>
      app.inject({ method: 'POST', url: '/v2/wallet-app/sessions', payload: { email, password } });
    assert.deepEqual((await signIn('nobody@example.com', sha256Hex('x'))).json(), { code: 406, err: 'not found user info in db' });
    const wrong = await signIn(member.user.email, sha256Hex('wrong'));
    assert.deepEqual([wrong.statusCode, wrong.json()], [401, { code: 4004, err: 'invalid password' }]);
    const ok = await signIn(member.user.email.toUpperCase(), sha256Hex(member.password).toUpperCase());
    assert.equal(ok.statusCode, 200);
    const body = ok.json();
    assert.match(body.session_token, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(body.member, { email: member.user.email, name: member.user.name, main_address: member.address, status: 1 });
    const stored = await services.store.db.selectFrom('wallet_sessions').selectAll().execute();
    assert.ok(!JSON.stringify(stored).includes(body.session_token), 'only the token hash is stored');
    const notHex = await signIn(member.user.email, 'plain password');
    assert.equal(notHex.statusCode, 400);
  });

  test('sign-in: wrong passwords from one address make it wait (4008, Retry-After); the owner elsewhere gets in', async () => {
    const member = await signedInMember(app, services);
    const signIn = (password: string, remoteAddress: string) =>
      app.inject({ method: 'POST', url: '/v2/wallet-app/sessions', payload: { email: member.user.email, password }, remoteAddress });
    const free = services.config.partnerApi.signInThrottle.addressFreeFailures;
    for (let attempt = 0; attempt < free; attempt += 1) {
      assert.equal((await signIn(sha256Hex(`guess ${attempt}`), '10.9.0.1')).json().code, 4004);
    }
    const waiting = await signIn(sha256Hex(member.password), '10.9.0.1');
    assert.deepEqual([waiting.statusCode, waiting.json()], [429, { code: 4008, err: 'too many wrong passwords, try again later' }]);
    assert.ok(Number(waiting.headers['retry-after']) >= 1, 'Retry-After tells how long to wait');
    const owner = await signIn(sha256Hex(member.password), '10.9.0.2');
    assert.equal(owner.statusCode, 200, 'the account has not reached its own limit');
    const failures = await services.store.db.selectFrom('sign_in_failures').selectAll().where('scope', '=', `account:${member.user.id}`).execute();
    assert.deepEqual(failures, [], 'a right password clears the account count');
  });

  test('sessions: 4003 without a token, 402 for an unknown, revoked or expired one', async () => {
    const member = await signedInMember(app, services);
    const me = await walletApp(app, member.token, 'GET', '/v2/wallet-app/me');
    assert.deepEqual(me.json(), { email: member.user.email, name: member.user.name, main_address: member.address, status: 1 });
    const none = await app.inject({ method: 'GET', url: '/v2/wallet-app/me' });
    assert.deepEqual([none.statusCode, none.json()], [401, { code: 4003, err: 'fail to get authorization in header' }]);
    const unknown = await walletApp(app, 'not-a-session', 'GET', '/v2/wallet-app/me');
    assert.deepEqual([unknown.statusCode, unknown.json()], [401, { code: 402, err: 'invalid session' }]);

    assert.equal((await walletApp(app, member.token, 'DELETE', '/v2/wallet-app/sessions/current')).statusCode, 200);
    assert.equal((await walletApp(app, member.token, 'GET', '/v2/wallet-app/me')).json().code, 402);

    const expiring = await signedInMember(app, services);
    const hash = createHash('sha256').update(expiring.token).digest('hex');
    await services.store.db.updateTable('wallet_sessions').set({ expires_at: Math.floor(Date.now() / 1000) - 1 }).where('token_hash', '=', hash).execute();
    assert.equal((await walletApp(app, expiring.token, 'GET', '/v2/wallet-app/me')).json().code, 402);
    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    assert.equal((await openAs(app, expiring.token, key)).json().code, 402, 'no session, no opening');
    assert.equal((await result(app, key)).json().status, 'prepared');
  });

  test('the request view shows exactly what approval does, without changing state until opened', async () => {
    const member = await signedInMember(app, services);
    const to = '0xd000000000000000000000000000000000000001';
    const key = await prepareKey(app, {
      bapp: { name: 'Shop', callback: { success: 'shop://done', fail: 'shop://failed' } },
      type: 'send_coin',
      transaction: { to, amount: '1.5' },
    });
    const seen = await walletApp(app, member.token, 'GET', `/v2/wallet-app/a2a/requests/${key}`);
    assert.equal(seen.statusCode, 200);
    const view = seen.json();
    assert.deepEqual(view, {
      request_key: key,
      type: 'send_coin',
      chain: 'main',
      status: 'prepared',
      expiration_time: view.expiration_time,
      bapp: { name: 'Shop', callback: { success: 'shop://done', fail: 'shop://failed' } },
      summary: `Send 1.5 coin to ${to} on main`,
      fee_delegated: false,
      estimated_gas: null,
      transaction: { from: null, to, amount: '1.5', value: '1500000000000000000', data: '0x' },
    });
    assert.equal((await result(app, key)).json().status, 'prepared');
    const opened = await openAs(app, member.token, key);
    assert.deepEqual(opened.json(), { ...view, status: 'requested' });

    const message = await prepareKey(app, { bapp: BAPP, type: 'sign_message', message: { value: '0x48656c6c6f', is_hex_encoded: true } });
    const messageView = (await openAs(app, member.token, message)).json();
    assert.equal(messageView.summary, 'Sign the message "Hello"');
    assert.deepEqual(messageView.message, { from: null, value: '0x48656c6c6f', is_hex_encoded: true, text: 'Hello' });
    const unknown = await openAs(app, member.token, '00000000-0000-0000-0000-000000000000');
    assert.deepEqual([unknown.statusCode, unknown.json()], [400, { code: 6000, err: 'request key does not exist' }]);
  });

  test('a card transfer shows the calldata the member will send, naming the member as sender', async () => {
    const member = await signedInMember(app, services);
    const minted = await mintCards(services, [member.address]);
    const to = '0xd000000000000000000000000000000000000002';
    const key = await prepareKey(app, { bapp: BAPP, type: 'send_card', transaction: { contract: minted.contractAddress, to, card_id: '1' } });
    const view = (await openAs(app, member.token, key)).json();
    assert.equal(view.summary, `Send card #1 of ${minted.contractAddress} to ${to} on main`);
    assert.equal(
      view.transaction.data,
      encodeFunctionData({ abi: cardNftAbi, functionName: 'safeTransferFrom', args: [member.address, to, 1n] }),
    );
  });

  test('the web wallet page: served at / with the request link, script approves through the API', async () => {
    const page = await app.inject({ method: 'GET', url: '/?target=/a2a?request_key=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0' });
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /^text\/html/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.match(page.body, /<script src="\/wallet-app\.js"><\/script>/);
    const script = await app.inject({ method: 'GET', url: '/wallet-app.js' });
    assert.match(script.headers['content-type'] as string, /^text\/javascript/);

    // Run the page script against the real API with a tiny DOM stand-in and no crypto.subtle, so
    // the built-in SHA-256 is what hashes the password and PIN.
    const member = await signedInMember(app, services);
    const key = await prepareKey(app, { bapp: BAPP, type: 'sign_message', message: { value: 'from the page' } });
    const page$ = fakePage(`?target=/a2a?request_key=${key}`, app);
    page$.run(script.body);
    await page$.settle();
    assert.equal(page$.element('sign-in').hidden, false);
    page$.element('email').value = member.user.email;
    page$.element('password').value = member.password;
    await page$.fire('sign-in', 'submit');
    assert.equal(page$.element('request').hidden, false, page$.element('message').textContent);
    assert.equal(page$.element('summary').textContent, 'Sign the message "from the page"');
    assert.equal((await result(app, key)).json().status, 'requested');
    page$.element('pin').value = member.pin;
    await page$.fire('decision', 'submit');
    const final = (await result(app, key)).json();
    assert.equal(final.status, 'completed', page$.element('message').textContent);
    assert.equal(page$.element('message').textContent, 'Approved.');
  });
});

interface FakeElement {
  hidden: boolean;
  value: string;
  textContent: string;
  className: string;
  disabled: boolean;
  href: string;
  listeners: Record<string, (event: { preventDefault(): void }) => Promise<void> | void>;
  addEventListener(type: string, listener: (event: { preventDefault(): void }) => Promise<void> | void): void;
  append(...children: FakeElement[]): void;
}

/** Just enough of a browser for the page script: elements by id, sessionStorage, fetch into app.inject. */
function fakePage(search: string, app: App) {
  const elements = new Map<string, FakeElement>();
  const make = (): FakeElement => ({
    hidden: true,
    value: '',
    textContent: '',
    className: '',
    disabled: false,
    href: '',
    listeners: {},
    addEventListener(type, listener) {
      this.listeners[type] = listener;
    },
    append() {},
  });
  const element = (id: string) => {
    if (!elements.has(id)) elements.set(id, make());
    return elements.get(id)!;
  };
  const storage = new Map<string, string>();
  const pending: Promise<unknown>[] = [];
  const context = vm.createContext({
    document: { getElementById: element, createElement: make },
    location: { search, pathname: '/', hash: '', reload() {} },
    sessionStorage: {
      getItem: (key: string) => storage.get(key) ?? null,
      setItem: (key: string, value: string) => storage.set(key, value),
      removeItem: (key: string) => storage.delete(key),
    },
    fetch: (url: string, init: { method: string; headers: Record<string, string>; body?: string }) => {
      const call = app
        .inject({ method: init.method as 'GET', url, headers: init.headers, ...(init.body ? { payload: init.body } : {}) })
        .then((response) => ({ ok: response.statusCode < 300, status: response.statusCode, json: async () => response.json() }));
      pending.push(call);
      return call;
    },
    window: { addEventListener() {} },
    URL,
    URLSearchParams,
    TextEncoder,
    DataView,
    Uint8Array,
    Array,
    Math,
    JSON,
    String,
    Date,
    Promise,
    encodeURIComponent,
  });
  return {
    element,
    run(source: string) {
      vm.runInContext(source, context);
    },
    async settle() {
      for (let round = 0; round < 20; round++) {
        await Promise.all(pending.splice(0));
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    async fire(id: string, type: string) {
      await element(id).listeners[type]!({ preventDefault() {} });
      await this.settle();
    },
  };
}
