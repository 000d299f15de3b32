import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../app.ts';
import { openAs, prepareKey, signedInMember, walletApp } from '../../a2a/testing/support.ts';
import { openTestApp, type TestApp, type TestServices } from '../../testing/test-services.ts';
import { requestState } from './commands.ts';

/** The activity's requests in their true state: expired once their time is over, refused when the app will not approve them. */
describe('wallet-app activity: request states', () => {
  let testApp: TestApp;
  let services: TestServices;
  let app: App;

  before(async () => {
    testApp = await openTestApp();
    ({ services, app } = testApp);
  });
  after(async () => {
    await testApp?.cleanup();
  });

  test('each stored status, the clock and the BApp name decide the state', () => {
    const row = { bapp_name: 'Shop', expiration_time: 1_000, error_code: null };
    const state = (status: string, extra: object = {}, now = 500) => requestState(services.config, { ...row, status, ...extra } as never, now);
    assert.deepEqual(
      [state('prepared'), state('requested'), state('completed'), state('canceled'), state('error', { error_code: 6414 }), state('error', { error_code: 6001 })],
      ['not_opened', 'waiting', 'approved', 'canceled', 'failed', 'expired'],
    );
    assert.deepEqual([state('prepared', {}, 1_000), state('requested', {}, 2_000), state('completed', {}, 2_000)], ['expired', 'expired', 'approved']);
    assert.deepEqual([state('requested', { bapp_name: 'Wallet Support' }), state('canceled', { bapp_name: 'Wallet Support' })], ['refused', 'canceled']);
  });

  test('a request from a BApp named as the operator shows as refused, not waiting', async () => {
    const member = await signedInMember(app, services);
    const requestKey = await prepareKey(app, { bapp: { name: 'Wallet Support' }, type: 'auth' });
    assert.equal((await openAs(app, member.token, requestKey)).statusCode, 200);
    const items = (await walletApp(app, member.token, 'GET', '/v2/wallet-app/activity')).json().items;
    assert.deepEqual(
      items.map((item: Record<string, unknown>) => [item.kind, item.request_key, item.status, item.state, item.bapp_name]),
      [['request', requestKey, 'requested', 'refused', 'Wallet Support']],
    );
  });
});
