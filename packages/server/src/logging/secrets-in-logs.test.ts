import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import Type from 'typebox';
import { buildApp, type App } from '../app.ts';
import type { Services } from '../services.ts';
import { createTestInstallation, type TestInstallation } from '../testing/test-services.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { buildMintPayload, mintOk, partnerCall } from '../cards/testing/card-factories.ts';
import { approveAs, BAPP, finalResult, openAs, prepareKey, signedInMember, walletApp } from '../a2a/testing/support.ts';
import { createFeeCredential } from '../a2a/fee-delegation/commands.ts';
import { createServiceKey } from '../a2a/service-keys/commands.ts';
import { sha256Hex } from '../custody/passwords.ts';
import { uploadBody } from '../uploads/testing/multipart.ts';
import { buildPng } from '../uploads/testing/media.ts';
import { secret } from '../lib/secret.ts';
import { createLogger, prettyLine } from './logger.ts';
import { secretFieldsKnown } from './redaction.ts';

let captured = '';
let installation: TestInstallation;
let services: Services;
let app: App;

before(async () => {
  const log = createLogger({
    level: 'trace',
    destination: new Writable({
      write(chunk: Buffer, _encoding, callback) {
        captured += chunk.toString();
        callback();
      },
    }) as never,
  });
  installation = await createTestInstallation({ webhooks: { allowPrivateAddresses: true } });
  services = await installation.open(log);
  app = await buildApp({ services, logger: log.child({ component: 'http' }) as never });
  // Routes this test declares as any resource would, after the logger exists: one with fields
  // marked secret (at the top and nested in an array), and its twin without marks. Their handler
  // fails with the body on the error, as a careless error would carry it into the error log.
  const failWithBody = (request: { body: unknown }) => {
    throw Object.assign(new Error('launch refused'), { requestBody: request.body });
  };
  app.post('/v2/test-only/launch', { schema: { body: Type.Object({ launch_code: secret(Type.String()), crew: Type.Array(Type.Object({ name: Type.String(), badge_pin: secret(Type.String()) })) }) } }, failWithBody);
  app.post('/v2/test-only/unmarked', { schema: { body: Type.Object({ launch_note: Type.String() }) } }, failWithBody);
});
after(async () => {
  await app?.close();
  await services?.close();
  await installation?.remove();
});

test('a session logged at trace level (sign-ins and sign-up, PINs, mints with secure parts, a refused mint, a send, a claim link, a webhook secret, fee credentials, service keys) writes none of its secrets', async () => {
  const secrets = new Map<string, string>();
  const keep = (name: string, value: string | undefined) => {
    assert.ok(value && value.length >= 6, `${name} is a secret worth looking for`);
    secrets.set(name, value);
  };
  keep('master key', readFileSync(join(installation.dataDir, 'master.key'), 'utf8').trim());

  // A partner: a wrong password, then A1 with the right one; a mint with a wrong PIN and one with the right PIN.
  const partner = await signedInPartner(app, services);
  keep('partner password', partner.password);
  keep('partner password hash', partner.passwordHash);
  keep('partner PIN hash', partner.pinHash);
  keep('partner access token', partner.token);
  const wrongPassword = await app.inject({ method: 'POST', url: '/v2/partner/auth', payload: { email: partner.partner.email, password: sha256Hex('not it') } });
  assert.equal(wrongPassword.json().code, 4004);
  const wrongPinHash = sha256Hex('999999');
  keep('wrong PIN hash', wrongPinHash);
  const wrongPin = await partnerCall(app, partner.token, 'POST', '/v2/wallet/mint', buildMintPayload(partner, { pin: wrongPinHash }));
  assert.equal(wrongPin.json().code, 4006);
  const own = partner.partner.main_address;
  // A6, then A7 with a `secure` part (holder-only card data), twice: one card is sent, one escrowed.
  const upload = uploadBody(buildPng({ width: 8, height: 8 }), 'ticket.png', 'image/png');
  const uploaded = await app.inject({ method: 'POST', url: '/v2/wallet/nftResource/secure', headers: { ...upload.headers, authorization: partner.token }, payload: upload.payload });
  assert.equal(uploaded.statusCode, 200, uploaded.body);
  const secure = { qr_code: 'QR-ENTRY-7f3a9c1e5b2d', bar_code: '4242-8817-3301', images: [{ low_resolution: uploaded.json().filename as string }] };
  keep('secure qr_code', secure.qr_code);
  keep('secure bar_code', secure.bar_code);
  const minted = await mintOk(app, partner.token, buildMintPayload(partner, { to_address: [own], secure }));
  const toSend = await mintOk(app, partner.token, buildMintPayload(partner, { to_address: [own], secure }));
  // A mint refused by validation: its body is logged at trace all the same, secrets redacted.
  const refusedSecure = { qr_code: 'QR-REFUSED-c0ffee112233' };
  keep('secure qr_code of a refused mint', refusedSecure.qr_code);
  const refused = await partnerCall(app, partner.token, 'POST', '/v2/wallet/mint', buildMintPayload(partner, { contract_address: 'not an address', secure: refusedSecure }));
  assert.equal(refused.statusCode, 400, refused.body);
  // A10 with the PIN.
  const sent = await partnerCall(app, partner.token, 'POST', `/v2/wallet/nft/${partner.nftId}/${toSend.card_ids[0]}/send`, { pin: partner.pinHash, card_name: 'Gold', to_address: '0xb000000000000000000000000000000000000003' });
  assert.equal(sent.statusCode, 200, sent.body);
  // A webhook endpoint: its signing secret is in the answer only.
  const webhook = await partnerCall(app, partner.token, 'POST', '/v2/partner/webhooks', { url: 'http://127.0.0.1:9/hooks', events: ['card.sent'] });
  assert.equal(webhook.statusCode, 200, webhook.body);
  keep('webhook signing secret', webhook.json().secret as string);

  // A claim link (A15, A17), viewed and claimed by a member who signed in.
  const body = { pin: partner.pinHash, contract_address: partner.contractAddress };
  assert.equal((await partnerCall(app, partner.token, 'POST', '/v2/escrow/approve', body)).statusCode, 200);
  const deposit = await partnerCall(app, partner.token, 'POST', '/v2/escrow', { ...body, card_ids: minted.card_ids });
  assert.equal(deposit.statusCode, 200, deposit.body);
  const link = new URL(deposit.json().claim_links[0] as string);
  const claimSecret = link.hash.slice(1);
  keep('claim secret', claimSecret);
  // Wallet-app sign-up through the app (the session in a cookie), a request with the cookie, and an API sign-in.
  const newcomer = { name: 'Logged Newcomer', phone: '+14155550142', email: 'logged.newcomer@example.com', password: 'violet tractor 58 harbor', pin: '583920', birth: '1990-04-02' };
  keep('sign-up password', newcomer.password);
  keep('sign-up password hash', sha256Hex(newcomer.password));
  keep('sign-up PIN hash', sha256Hex(newcomer.pin));
  const signedUp = await app.inject({
    method: 'POST',
    url: '/v2/wallet-app/members',
    headers: { 'x-wallet-app': '1' },
    payload: { ...newcomer, password: sha256Hex(newcomer.password), pin: sha256Hex(newcomer.pin) },
  });
  assert.equal(signedUp.statusCode, 200, signedUp.body);
  const cookie = String(signedUp.headers['set-cookie']).split(';')[0]!;
  keep('session cookie', cookie.split('=')[1]);
  const me = await app.inject({ method: 'GET', url: '/v2/wallet-app/me', headers: { cookie, 'x-wallet-app': '1' } });
  assert.equal(me.statusCode, 200, me.body);
  const apiSignIn = await app.inject({ method: 'POST', url: '/v2/wallet-app/sessions', payload: { email: newcomer.email, password: sha256Hex(newcomer.password) } });
  assert.equal(apiSignIn.statusCode, 200, apiSignIn.body);
  keep('API session token', apiSignIn.json().session_token as string);
  const member = await signedInMember(app, services, { coins: '1' });
  keep('member password', member.password);
  keep('member PIN', member.pin);
  keep('member PIN hash', member.pinHash);
  keep('member session token', member.token);
  keep('member mnemonic', (await services.vault.unlock(member.user.key_id, member.pinHash)).mnemonic);
  const claimPath = `/v2/wallet-app/claims/${link.pathname.split('/').pop()}`;
  assert.equal((await walletApp(app, member.token, 'POST', `${claimPath}/view`, { secret: `${claimSecret.slice(0, -4)}0000` })).statusCode >= 400, true);
  const claimed = await walletApp(app, member.token, 'POST', `${claimPath}/claim`, { secret: claimSecret });
  assert.equal(claimed.statusCode, 200, claimed.body);

  // App2App: a service key's auth request and a fee-delegated send, approved with the PIN after a wrong one.
  const serviceKey = await createServiceKey(services.store.db, 'Logged Partner');
  keep('service key', serviceKey.service_key);
  const feeCredential = await createFeeCredential(services, { fundCoins: 1 });
  keep('fee credential', feeCredential.credential);
  const authKey = await prepareKey(app, { bapp: { ...BAPP, service_key: serviceKey.service_key }, type: 'auth' });
  assert.equal((await openAs(app, member.token, authKey)).statusCode, 200);
  assert.equal((await approveAs(app, member.token, authKey, '111111')).json().code, 4006);
  assert.equal((await approveAs(app, member.token, authKey, member.pin)).statusCode, 200);
  const sendKey = await prepareKey(app, {
    bapp: { ...BAPP, kas_authorization_key: feeCredential.credential },
    type: 'send_coin',
    transaction: { to: '0xb000000000000000000000000000000000000002', amount: '0.1', from: member.address },
  });
  assert.equal((await approveAs(app, member.token, sendKey, member.pin)).statusCode, 200);
  assert.equal((await finalResult(app, sendKey)).result.status, 'success');

  const lines = captured.split('\n').filter(Boolean);
  assert.ok(lines.length >= 30, `the session was logged (${lines.length} lines)\n${captured}`);
  const found = [...secrets].filter(([, value]) => captured.includes(value)).map(([name]) => name);
  assert.deepEqual(found, [], 'secrets found in the log');
  // The refused mint's body was logged (its other fields in clear), its secure part redacted.
  const refusedLine = lines.map((line) => JSON.parse(line) as { body?: { contract_address?: string; secure?: unknown } }).find((entry) => entry.body?.contract_address === 'not an address');
  assert.equal(refusedLine?.body?.secure, '[redacted]');
  // The bodies and headers were logged (trace), with their secrets replaced.
  for (const field of ['"password":"[redacted]"', '"pin":"[redacted]"', '"secret":"[redacted]"', '"authorization":"[redacted]"', '"cookie":"[redacted]"', '"secure":"[redacted]"', '"service_key":"[redacted]"', '"kas_authorization_key":"[redacted]"']) {
    assert.ok(captured.includes(field), `${field} in the log`);
  }

  // Each request's line names its route pattern and request id (answered as x-request-id).
  const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const requestLines = entries.filter((entry) => entry.msg === 'request');
  assert.ok(requestLines.length >= 15);
  assert.ok(requestLines.every((entry) => typeof entry.reqId === 'string' && entry.level === 20 && typeof entry.route === 'string'));
  // A command's own line (the messenger's, inside A3) carries the id of the request it serves.
  const invited = await partnerCall(app, partner.token, 'POST', '/v2/wallet/invite', { to_person: [['Newcomer Kim', '+14155550199']] });
  assert.equal(invited.statusCode, 200, invited.body);
  const messengerLine = captured
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((entry) => String(entry.msg).startsWith('messenger:'));
  assert.ok(messengerLine, 'the messenger logged the invite');
  assert.equal(messengerLine.reqId, invited.headers['x-request-id']);
  assert.equal(messengerLine.component, undefined, 'written by the service logger, not the request logger');

  const answered = await app.inject({ method: 'GET', url: '/health/live' });
  const last = JSON.parse(captured.trim().split('\n').pop()!) as Record<string, unknown>;
  assert.equal(last.reqId, answered.headers['x-request-id']);
  assert.equal(last.route, '/health/live');
});

test('a route declared with fields marked secret has them redacted, in the request line and in an error that carries the body, with no change to the logger', async () => {
  captured = '';
  const marked = await app.inject({ method: 'POST', url: '/v2/test-only/launch', payload: { launch_code: 'LAUNCH-7731-alpha', crew: [{ name: 'Kim', badge_pin: 'BADGE-0042-zulu' }] } });
  assert.equal(marked.statusCode, 500);
  const unmarked = await app.inject({ method: 'POST', url: '/v2/test-only/unmarked', payload: { launch_note: 'NOTE-in-clear-1234' } });
  assert.equal(unmarked.statusCode, 500);

  assert.equal(captured.includes('LAUNCH-7731-alpha'), false, captured);
  assert.equal(captured.includes('BADGE-0042-zulu'), false, captured);
  const entries = captured.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, any>);
  const received = entries.find((entry) => entry.msg === 'request received' && entry.body?.crew);
  assert.deepEqual(received?.body, { launch_code: '[redacted]', crew: [{ name: 'Kim', badge_pin: '[redacted]' }] });
  const failed = entries.find((entry) => entry.err?.message === 'launch refused' && entry.err.requestBody?.crew);
  assert.deepEqual(failed?.err.requestBody, { launch_code: '[redacted]', crew: [{ name: 'Kim', badge_pin: '[redacted]' }] });
  // The same shape without marks is written as it came: it is the marks that redact.
  assert.ok(captured.includes('NOTE-in-clear-1234'));

  assert.deepEqual(secretFieldsKnown().get('badge_pin'), ['POST /v2/test-only/launch body.crew.items.badge_pin']);
  // The OpenAPI document shows the marks.
  const document = (app as unknown as { swagger(): { paths: Record<string, any> } }).swagger();
  assert.equal(document.paths['/v2/partner/auth']!.post.requestBody.content['application/json'].schema.properties.password['x-secret'], true);
});

test('the readable format is one line per entry with level, component and request id', () => {
  const line = prettyLine(JSON.stringify({ level: 40, time: Date.UTC(2026, 0, 2, 3, 4, 5, 678), component: 'http', reqId: 'r-1', msg: 'slow', ms: 12 }));
  assert.equal(line, '03:04:05.678 WARN  [http] [r-1] slow ms=12');
});
