import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { buildApp, type App } from '../app.ts';
import type { Services } from '../services.ts';
import { createTestInstallation, type TestInstallation } from '../testing/test-services.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { buildMintPayload, mintOk, partnerCall } from '../cards/testing/card-factories.ts';
import { approveAs, BAPP, finalResult, openAs, prepareKey, signedInMember, walletApp } from '../a2a/testing/support.ts';
import { createFeeCredential } from '../a2a/fee-delegation/commands.ts';
import { createServiceKey } from '../a2a/service-keys/commands.ts';
import { sha256Hex } from '../custody/passwords.ts';
import { createLogger, prettyLine } from './logger.ts';

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
  installation = await createTestInstallation();
  services = await installation.open(log);
  app = await buildApp({ services, logger: log.child({ component: 'http' }) as never });
});
after(async () => {
  await app?.close();
  await services?.close();
  await installation?.remove();
});

test('a session logged at trace level (sign-ins, PINs, mints, a claim link, fee credentials, service keys) writes none of its secrets', async () => {
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
  const minted = await mintOk(app, partner.token, buildMintPayload(partner, { to_address: [own] }));

  // A claim link (A15, A17), viewed and claimed by a member who signed in.
  const body = { pin: partner.pinHash, contract_address: partner.contractAddress };
  assert.equal((await partnerCall(app, partner.token, 'POST', '/v2/escrow/approve', body)).statusCode, 200);
  const deposit = await partnerCall(app, partner.token, 'POST', '/v2/escrow', { ...body, card_ids: minted.card_ids });
  assert.equal(deposit.statusCode, 200, deposit.body);
  const link = new URL(deposit.json().claim_links[0] as string);
  const claimSecret = link.hash.slice(1);
  keep('claim secret', claimSecret);
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
  // The bodies and headers were logged (trace), with their secrets replaced.
  for (const field of ['"password":"[redacted]"', '"pin":"[redacted]"', '"secret":"[redacted]"', '"authorization":"[redacted]"', '"service_key":"[redacted]"', '"kas_authorization_key":"[redacted]"']) {
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

test('the readable format is one line per entry with level, component and request id', () => {
  const line = prettyLine(JSON.stringify({ level: 40, time: Date.UTC(2026, 0, 2, 3, 4, 5, 678), component: 'http', reqId: 'r-1', msg: 'slow', ms: 12 }));
  assert.equal(line, '03:04:05.678 WARN  [http] [r-1] slow ms=12');
});
