import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import { after, before, describe, test } from 'node:test';
import type { App } from '../app.ts';
import { sha256Hex } from '../custody/passwords.ts';
import { openTestApp, type TestApp, type TestServices } from '../testing/test-services.ts';
import { decodeFunctionData, encodeFunctionData } from 'viem';
import { cardNftAbi } from '@wallet-service/contracts';
import { BAPP, deployFromOperator, fixtureContracts, mintCards, openAs, prepareKey, result, signedInMember, walletApp } from '../a2a/testing/support.ts';
import { opensAppPage, WALLET_APP_DIST, WALLET_APP_HEADERS, walletAppStaticRoutes } from './static-app.ts';
import { errorCodes } from '../errors/codes.ts';

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

  test('sign-in: an unknown e-mail and a wrong password answer the same; a session for the right one', async () => {
    const member = await signedInMember(app, services);
    const signIn = (email: string, password: string) =>
      app.inject({ method: 'POST', url: '/v2/wallet-app/sessions', payload: { email, password } });
    const oneAnswer = [401, { code: 4004, err: 'invalid password', message: 'the e-mail or the password is wrong' }];
    const unknown = await signIn('nobody@example.com', sha256Hex('x'));
    assert.deepEqual([unknown.statusCode, unknown.json()], oneAnswer);
    const wrong = await signIn(member.user.email, sha256Hex('wrong'));
    assert.deepEqual([wrong.statusCode, wrong.json()], oneAnswer);
    assert.deepEqual(Object.keys(unknown.headers).sort(), Object.keys(wrong.headers).sort(), 'the same headers too');
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
    const free = services.config.partnerApi.signInThrottle.addressAccountFreeFailures;
    for (let attempt = 0; attempt < free; attempt += 1) {
      assert.equal((await signIn(sha256Hex(`guess ${attempt}`), '10.9.0.1')).json().code, 4004);
    }
    const waiting = await signIn(sha256Hex(member.password), '10.9.0.1');
    assert.deepEqual([waiting.statusCode, waiting.json()], [429, { code: 4008, err: 'too many wrong passwords, try again later' }]);
    assert.ok(Number(waiting.headers['retry-after']) >= 1, 'Retry-After tells how long to wait');
    for (let attempt = 0; attempt < 12; attempt += 1) {
      assert.equal((await signIn(sha256Hex(`spread ${attempt}`), `10.9.1.${attempt}`)).json().code, 4004, 'each address has its own count');
    }
    const owner = await signIn(sha256Hex(member.password), '10.9.0.2');
    assert.equal(owner.statusCode, 200, 'the owner elsewhere is not locked out');
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
      bapp: { name: 'Shop', callback: { success: 'shop://done', fail: 'shop://failed' }, impersonates_operator: false },
      summary: `Send 1.5 coin to ${to} on main`,
      from: null,
      fee_delegated: false,
      estimated_gas: null,
      estimated_fee: null,
      transaction: { from: null, to, amount: '1.5', value: '1500000000000000000', data: '0x' },
      // Read when shown (request-facts.ts): a member without coins is 1.5 short; nothing to warn of.
      chain_display: { name: 'Main chain', ticker: 'MAIN' },
      coin_balance: { before: '0', after: '-1500000000000000000' },
      contracts: [],
      warnings: [],
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

  test('execute_contract given as abi + params: the view carries the ABI that decodes its calldata, and the from address', async () => {
    const member = await signedInMember(app, services, { coins: '1' });
    const target = await deployFromOperator(services, fixtureContracts().target);
    const add = { type: 'function', name: 'add', stateMutability: 'payable', inputs: [{ name: 'x', type: 'uint256' }], outputs: [] };
    const key = await prepareKey(app, {
      bapp: BAPP,
      type: 'execute_contract',
      transaction: { to: target, value: '0', abi: [add], params: ['7'], from: member.address },
    });
    const view = (await openAs(app, member.token, key)).json();
    assert.equal(view.from, member.address);
    assert.deepEqual(view.transaction.abi, [add]);
    const decoded = decodeFunctionData({ abi: view.transaction.abi, data: view.transaction.data });
    assert.deepEqual([decoded.functionName, decoded.args], ['add', [7n]]);

    const encoded = await prepareKey(app, {
      bapp: BAPP,
      type: 'execute_contract',
      transaction: { to: target, encoded_function_call: view.transaction.data },
    });
    const encodedView = (await openAs(app, member.token, encoded)).json();
    assert.equal(encodedView.from, null);
    assert.equal('abi' in encodedView.transaction, false, 'no ABI was given: none is shown');
  });
});

/** The built wallet app (packages/wallet-app/dist) served at its paths with the strict headers. */
describe('the wallet app is served as static files', () => {
  let testApp: TestApp;
  before(async () => {
    testApp = await openTestApp();
  });
  after(() => testApp?.cleanup());

  test('index.html at /, /sign-in and /claim/<id>, with no inline script; its hashed files under /assets', async () => {
    const { app } = testApp;
    const built = readFileSync(join(WALLET_APP_DIST, 'index.html'), 'utf8');
    for (const url of ['/?target=/a2a?request_key=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0', '/sign-in', '/claim/AAAAAAAAAAAAAAAAAAAAAA']) {
      const page = await app.inject({ method: 'GET', url });
      assert.equal(page.statusCode, 200, url);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      assert.equal(page.headers['content-security-policy'], WALLET_APP_HEADERS['content-security-policy']);
      assert.equal(page.headers['x-frame-options'], 'DENY');
      assert.equal(page.headers['cache-control'], 'no-store');
      assert.equal(page.body, built);
    }
    assert.doesNotMatch(built, /<script(?![^>]*\bsrc=)[^>]*>/, 'every script is a file');
    assert.doesNotMatch(built, /<style|\sstyle=/, 'every style is a file');
    const files = [...built.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    assert.ok(files.some((file) => file.endsWith('.js')) && files.some((file) => file.endsWith('.css')), built);
    for (const file of files) {
      const asset = await app.inject({ method: 'GET', url: file });
      assert.equal(asset.statusCode, 200, file);
      assert.equal(asset.headers['content-security-policy'], WALLET_APP_HEADERS['content-security-policy']);
      assert.match(String(asset.headers['cache-control']), /immutable/);
    }
    const missing = await app.inject({ method: 'GET', url: '/assets/none.js' });
    assert.deepEqual([missing.statusCode, missing.json()], [404, { code: 404, err: 'not Found' }]);
    const outside = await app.inject({ method: 'GET', url: '/assets/../index.html' });
    assert.notEqual(outside.statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/wallet-app.js' })).statusCode, 404, 'the old page script is gone');
  });

  test("a browser opening any other page gets the app's own 404 page; API paths and other clients the JSON 404", async () => {
    const { app } = testApp;
    const html = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const page = await app.inject({ method: 'GET', url: '/nope/deeper?x=1', headers: { accept: html } });
    assert.equal(page.statusCode, 404);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.equal(page.headers['content-security-policy'], WALLET_APP_HEADERS['content-security-policy']);
    assert.equal(page.body, readFileSync(join(WALLET_APP_DIST, 'index.html'), 'utf8'));
    for (const [url, accept] of [['/nope', 'application/json'], ['/nope', '*/*'], ['/v2/nope', html], ['/v2/wallet-app/nope', html], ['/assets/none.js', html], ['/health/nope', html]] as const) {
      const answer = await app.inject({ method: 'GET', url, headers: { accept } });
      assert.deepEqual([answer.statusCode, answer.json()], [404, { code: 404, err: 'not Found' }], `${url} ${accept}`);
    }
    assert.equal(opensAppPage('/v2', html), false);
    assert.equal(opensAppPage('/v2x', html), true, 'only the API prefix itself is left out');
  });

  test('without a build, the app paths answer 503 saying how to build it', async () => {
    const bare = Fastify();
    await bare.register(walletAppStaticRoutes, { distDir: join(WALLET_APP_DIST, 'no-such-build') });
    const answer = await bare.inject({ method: 'GET', url: '/' });
    assert.equal(answer.statusCode, 503);
    assert.match(answer.json().message, /npm install/);
    await bare.close();
  });
});

test("the app's error words cover exactly the registry's codes (packages/wallet-app/src/messages.ts)", async () => {
  // Typed here by hand: the app's modules are typed for the browser, not for this package (`as
  // string` keeps TypeScript from checking that module; the path stays one a bundler follows).
  const { ERROR_MESSAGES, describeCode } = (await import('../../../wallet-app/src/messages.ts' as string)) as { ERROR_MESSAGES: Record<number, string>; describeCode(code: number, detail?: string, status?: number): string };
  assert.deepEqual(Object.keys(ERROR_MESSAGES).map(Number).sort((a, b) => a - b), Object.keys(errorCodes).map(Number).sort((a, b) => a - b));
  for (const [code, words] of Object.entries(ERROR_MESSAGES)) assert.doesNotMatch(words, /^Error \d|bad request|internal server error/i, code);
  assert.match(describeCode(400, 'phone is not a valid phone number in KR'), /not valid for the country chosen/);
  assert.doesNotMatch(describeCode(9999, undefined, 502), /Error|9999/, 'a proxy answer is told in words');
});
