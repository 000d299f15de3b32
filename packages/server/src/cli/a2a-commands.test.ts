import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseEther, type Address } from 'viem';
import type { App } from '../app.ts';
import { cliFor } from './testing/run-cli.ts';
import { openTestApp, type TestApp, type TestServices } from '../testing/test-services.ts';
import { buildUser } from '../testing/factories.ts';
import { BAPP, prepare, prepareKey, result, setBalance } from '../a2a/testing/support.ts';

/** The operator CLI's App2App commands, run through main() against a running service's data. */
describe('wallet-service a2a, fee-credential, service-key and blacklist commands', () => {
  let testApp: TestApp;
  let services: TestServices;
  let app: App;
  let cli: Awaited<ReturnType<typeof cliFor>>['cli'];
  let restore = () => {};

  before(async () => {
    testApp = await openTestApp();
    ({ services, app } = testApp);
    ({ cli, restore } = await cliFor(services));
  });
  after(async () => {
    restore();
    await testApp?.cleanup();
  });

  test('a2a approve completes a transfer and prints the final result', async () => {
    const member = await buildUser(services);
    await setBalance(services, member.user.main_address as Address, parseEther('2'));
    const to = '0x7000000000000000000000000000000000000007';
    const key = await prepareKey(app, { bapp: BAPP, type: 'send_coin', transaction: { to, amount: '0.5' } });
    const run = await cli('a2a', 'approve', '--request-key', key, '--user', member.user.email, '--pin', member.pin, '--json');
    assert.equal(run.code, 0, run.stderr);
    const printed = JSON.parse(run.stdout);
    assert.equal(printed.status, 'completed');
    assert.equal(printed.result.status, 'success');
    assert.deepEqual((await result(app, key)).json(), printed);
    assert.equal(await services.chains.get('main').client.getBalance({ address: to }), parseEther('0.5'));

    const text = await cli('a2a', 'approve', '--request-key', key, '--user', member.user.email, '--pin', member.pin);
    assert.equal(text.code, 1);
    assert.equal(text.stderr, 'wallet-service: error 6011: invalid request status: the request is completed');
  });

  test('a2a approve with a wrong PIN fails and leaves the request open; a2a cancel cancels it', async () => {
    const member = await buildUser(services);
    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    const wrong = await cli('a2a', 'approve', '--request-key', key, '--user', member.user.email, '--pin', '999999');
    assert.equal(wrong.code, 1);
    assert.equal(wrong.stderr, 'wallet-service: error 4006: invalid pin code');
    assert.equal((await result(app, key)).json().status, 'prepared');

    const canceled = await cli('a2a', 'cancel', '--request-key', key, '--user', member.user.email);
    assert.equal(canceled.code, 0, canceled.stderr);
    assert.match(canceled.stdout, /^request_key: .+\nexpiration_time: \d+\nstatus: canceled$/);
    assert.equal((await result(app, key)).json().status, 'canceled');
    const unknown = await cli('a2a', 'cancel', '--request-key', key, '--user', 'nobody@example.com');
    assert.equal(unknown.stderr, 'wallet-service: error 406: not found user info in db');
    const missing = await cli('a2a', 'approve', '--user', member.user.email, '--pin', '1');
    assert.equal(missing.stderr, 'wallet-service: missing --request-key');
  });

  test('a2a approve of auth prints the addresses', async () => {
    const member = await buildUser(services);
    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    const run = await cli('a2a', 'approve', '--request-key', key, '--user', member.user.email, '--pin', member.pin);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`result.main_address: ${member.user.main_address}`));
    assert.match(run.stdout, /result\.bitcoin_address: bc1q/);
  });

  test('blacklist add, list and remove; prepare answers 6500 while an address is listed', async () => {
    const address = '0x8000000000000000000000000000000000000008';
    const added = await cli('blacklist', 'add', address, '--reason', 'fraud', '--json');
    assert.equal(added.code, 0, added.stderr);
    assert.deepEqual(JSON.parse(added.stdout), { address, blacklisted: true, reason: 'fraud' });
    const listed = await cli('blacklist', 'list');
    assert.match(listed.stdout, new RegExp(`${address} \\(fraud\\)`));
    const refused = await prepare(app, { bapp: BAPP, type: 'send_coin', transaction: { to: address, amount: '1' } });
    const blacklisted = { code: 6500, err: 'address is on the blacklist' };
    assert.deepEqual(refused.json(), { ...blacklisted, error: { ...blacklisted, message: `body/transaction/to: ${address} is on the blacklist` } });
    const removed = await cli('blacklist', 'remove', address, '--json');
    assert.deepEqual(JSON.parse(removed.stdout), { address, removed: true });
    assert.equal((await prepare(app, { bapp: BAPP, type: 'send_coin', transaction: { to: address, amount: '1' } })).statusCode, 200);
    assert.equal((await cli('blacklist', 'add', 'nope')).stderr, 'wallet-service: error 400: bad request: nope is not an address');
    assert.equal((await cli('blacklist', 'add')).stderr, 'wallet-service: give exactly one ADDRESS');
    assert.match((await cli('faucet', 'extra')).stderr, /unknown command "faucet extra"/);
  });

  test('service-key create and fee-credential create print secrets that prepare then accepts', async () => {
    const serviceKey = await cli('service-key', 'create', '--name', 'Partner A', '--json');
    assert.equal(serviceKey.code, 0, serviceKey.stderr);
    const { service_key: key } = JSON.parse(serviceKey.stdout);
    assert.match(key, /^sk_[A-Za-z0-9_-]{43}$/);
    assert.equal((await prepare(app, { bapp: { ...BAPP, service_key: key }, type: 'auth' })).statusCode, 200);

    const credential = await cli('fee-credential', 'create', '--chain', 'main', '--fund', '3', '--json');
    assert.equal(credential.code, 0, credential.stderr);
    const created = JSON.parse(credential.stdout);
    assert.match(created.credential, /^fd_[A-Za-z0-9_-]{43}$/);
    assert.equal(created.funded_coins, 3);
    assert.equal(await services.chains.get('main').client.getBalance({ address: created.fee_payer_address }), parseEther('3'));
    const stored = await services.store.db.selectFrom('a2a_fee_credentials').selectAll().execute();
    assert.ok(!JSON.stringify(stored).includes(created.credential), 'only the hash of the credential is stored');
    // Both creations are in the operator's audit log, without the secrets they showed once.
    const audit = await services.store.db.selectFrom('operator_audit').selectAll().where('action', 'in', ['fee-credential create', 'service-key create']).execute();
    assert.deepEqual(audit.map((entry) => entry.action).sort(), ['fee-credential create', 'service-key create']);
    assert.equal(JSON.parse(audit.find((entry) => entry.action === 'fee-credential create')!.after_json!).id, created.id);
    assert.ok(!JSON.stringify(audit).includes(created.credential) && !JSON.stringify(audit).includes(key), 'no secret in the audit log');
    const prepared = await prepare(app, {
      bapp: { ...BAPP, kas_authorization_key: created.credential },
      type: 'send_coin',
      transaction: { to: '0x9000000000000000000000000000000000000009', amount: '1' },
    });
    assert.equal(prepared.statusCode, 200, prepared.body);
    const revoked = await cli('fee-credential', 'revoke', '--id', created.id, '--json');
    assert.deepEqual(JSON.parse(revoked.stdout), { id: created.id, revoked: true });
    const refused = await prepare(app, {
      bapp: { ...BAPP, kas_authorization_key: created.credential },
      type: 'send_coin',
      transaction: { to: '0x9000000000000000000000000000000000000009', amount: '1' },
    });
    assert.deepEqual(refused.json(), { code: 6418, err: 'invalid fee-delegation credential', error: { code: 6418, message: 'body/bapp/kas_authorization_key: invalid fee-delegation credential', err: 'invalid fee-delegation credential' } });
  });

  test('a fee-credential create whose funding fails leaves neither a credential nor a key, and says why on one line', async () => {
    const credentials = async () => (await services.store.db.selectFrom('a2a_fee_credentials').select('id').execute()).length;
    const keys = async () => (await services.store.db.selectFrom('signing_keys').select('id').execute()).length;
    const [credentialsBefore, keysBefore] = [await credentials(), await keys()];
    // More coins than the operator holds: the funding transaction cannot be sent.
    const failed = await cli('fee-credential', 'create', '--chain', 'main', '--fund', '1000000000');
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /^wallet-service: [^\n]+$/);
    assert.equal(await credentials(), credentialsBefore);
    assert.equal(await keys(), keysBefore);
  });

  test('--help lists the App2App commands', async () => {
    const help = await cli('--help');
    for (const command of ['a2a approve', 'a2a cancel', 'fee-credential create', 'service-key create', 'blacklist add']) {
      assert.ok(help.stdout.includes(command), command);
    }
  });
});
