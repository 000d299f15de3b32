import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodeFunctionData, type Address } from 'viem';
import type { App } from '../../app.ts';
import { openTestApp, type TestApp, type TestServices } from '../../testing/test-services.ts';
import { addToBlacklist } from './commands.ts';
import { approveAs, BAPP, deployFromOperator, fixtureContracts, prepareKey, result, signedInMember } from '../testing/support.ts';

const keyedError = (requestKey: string, expirationTime: number, code: number, err: string, message: string) => ({
  request_key: requestKey,
  expiration_time: expirationTime,
  status: 'error',
  error: { code, err, message },
});

/** Operator policies at approval: blacklist (6500), member status (6501), daily execute_contract count (6200). */
describe('App2App policies', () => {
  let testApp: TestApp;
  let services: TestServices;
  let app: App;
  let target: Address;
  const { target: targetContract } = fixtureContracts();

  before(async () => {
    testApp = await openTestApp({ a2a: { executeContractDailyLimit: 2 } });
    ({ services, app } = testApp);
    target = await deployFromOperator(services, targetContract);
  });
  after(() => testApp?.cleanup());

  const addCall = (x: bigint) => ({
    bapp: BAPP,
    type: 'execute_contract',
    transaction: { to: target, encoded_function_call: encodeFunctionData({ abi: targetContract.abi, functionName: 'add', args: [x] }) },
  });

  test('an address blacklisted after prepare fails the approval with 6500; so does a blacklisted member', async () => {
    const member = await signedInMember(app, services, { coins: '1' });
    const to = '0xa000000000000000000000000000000000000001';
    const key = await prepareKey(app, { bapp: BAPP, type: 'send_coin', transaction: { to, amount: '0.1' } });
    await addToBlacklist(services.store.db, to);
    const expiration = (await result(app, key)).json().expiration_time;
    const approved = await approveAs(app, member.token, key, member.pin);
    const body = keyedError(key, expiration, 6500, 'address is on the blacklist', `${to} is on the blacklist`);
    assert.deepEqual([approved.statusCode, approved.json()], [400, body]);
    assert.deepEqual((await result(app, key)).json(), body);
    assert.equal(await services.chains.get('main').client.getBalance({ address: to }), 0n);

    const listed = await signedInMember(app, services);
    await addToBlacklist(services.store.db, listed.address);
    const auth = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    assert.equal((await approveAs(app, listed.token, auth, listed.pin)).json().error.code, 6500);
  });

  test('a member suspended after signing in cannot approve: 6501, the request ends in error', async () => {
    const member = await signedInMember(app, services);
    const key = await prepareKey(app, { bapp: BAPP, type: 'sign_message', message: { value: 'hello' } });
    await services.store.db.updateTable('users').set({ status: 422 }).where('id', '=', member.user.id).execute();
    const expiration = (await result(app, key)).json().expiration_time;
    const approved = await approveAs(app, member.token, key, member.pin);
    const body = keyedError(key, expiration, 6501, 'invalid user status', "the member's status is 422");
    assert.deepEqual([approved.statusCode, approved.json()], [400, body]);
    assert.deepEqual((await result(app, key)).json(), body);
    const signIn = await app.inject({ method: 'POST', url: '/v2/wallet-app/sessions', payload: { email: member.user.email, password: 'a'.repeat(64) } });
    assert.equal(signIn.statusCode, 401);
  });

  test('execute_contract is counted per member and day: the third approval answers 6200', async () => {
    const member = await signedInMember(app, services, { coins: '1' });
    const other = await signedInMember(app, services, { coins: '1' });
    for (const x of [1n, 2n]) {
      const key = await prepareKey(app, addCall(x));
      assert.equal((await approveAs(app, member.token, key, member.pin)).statusCode, 200);
    }
    const third = await prepareKey(app, addCall(3n));
    const expiration = (await result(app, third)).json().expiration_time;
    const refused = await approveAs(app, member.token, third, member.pin);
    assert.deepEqual(
      [refused.statusCode, refused.json()],
      [400, keyedError(third, expiration, 6200, 'execute contract count daily limit exceeded', 'at most 2 a day')],
    );
    const otherKey = await prepareKey(app, addCall(4n));
    assert.equal((await approveAs(app, other.token, otherKey, other.pin)).statusCode, 200, 'another member has its own count');
    const transfer = await prepareKey(app, { bapp: BAPP, type: 'send_coin', transaction: { to: target, amount: '0.000001' } });
    const sendCoin = await approveAs(app, member.token, transfer, member.pin);
    assert.notEqual(sendCoin.json().error?.code, 6200, 'only execute_contract is counted');
  });

  test('a reverting execute_contract does not use up the daily count', async () => {
    const member = await signedInMember(app, services, { coins: '1' });
    const reverting = await prepareKey(app, addCall(500n));
    const refused = await approveAs(app, member.token, reverting, member.pin);
    assert.equal(refused.json().error.code, 6414);
    assert.equal(refused.json().error.message, 'x must be below 100');
    for (const x of [5n, 6n]) {
      const key = await prepareKey(app, addCall(x));
      assert.equal((await approveAs(app, member.token, key, member.pin)).statusCode, 200);
    }
    const counted = await services.store.db.selectFrom('a2a_daily_counts').select('count').where('user_id', '=', member.user.id).executeTakeFirstOrThrow();
    assert.equal(counted.count, 2);
  });

  test('parallel execute_contract approvals never exceed the daily count', async () => {
    const member = await signedInMember(app, services, { coins: '1' });
    const keys = await Promise.all([10n, 11n, 12n, 13n].map((x) => prepareKey(app, addCall(x))));
    const answers = await Promise.all(keys.map((key) => approveAs(app, member.token, key, member.pin)));
    const codes = answers.map((answer) => (answer.statusCode === 200 ? 200 : answer.json().error.code)).sort();
    assert.deepEqual(codes, [200, 200, 6200, 6200]);
  });
});
