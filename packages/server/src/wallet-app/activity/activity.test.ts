import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../app.ts';
import { openAs, prepareKey, signedInMember, walletApp } from '../../a2a/testing/support.ts';
import { openTestApp, type TestApp, type TestServices } from '../../testing/test-services.ts';
import { availableTestStoreKinds, openTestStore, type TestStore } from '../../testing/test-store.ts';
import { requestState } from './commands.ts';
import { listCardTransfersOf, type Position } from './store.ts';

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

/** An address's card transfers, read a side at a time and merged: the same list as one sorted read of both sides. */
for (const kind of availableTestStoreKinds()) {
  describe(`wallet-app activity: an address's card transfers, paged (${kind})`, () => {
    let testStore: TestStore;
    before(async () => {
      testStore = await openTestStore(kind);
    });
    after(() => testStore?.cleanup());

    test('sent, received and to itself, ties in time broken by hash and log: each once, newest first, on every page size', async () => {
      const me = `0x${'a'.repeat(40)}`;
      const someone = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
      const rows = [];
      for (let i = 0; i < 40; i++) {
        const shape = i % 5; // 0 sent, 1 received, 2 to itself, 3 and 4 between others
        const from = shape === 0 || shape === 2 ? me : someone(i);
        const to = shape === 1 || shape === 2 ? me : someone(i + 100);
        // Four transfers a block time, two transactions a time, two logs a transaction.
        rows.push({ chain: 'main', block_number: i, log_index: i % 2, contract: someone(7), token_id: i, from_address: from, to_address: to, tx_hash: `0x${(Math.floor(i / 2) % 2).toString(16).padStart(64, '0')}`, block_time: 1_700_000_000 + Math.floor(i / 4) });
      }
      await testStore.store.db.insertInto('indexed_card_transfers').values(rows).execute();
      const expected = rows
        .filter((row) => row.from_address === me || row.to_address === me)
        .sort((a, b) => b.block_time - a.block_time || (a.tx_hash < b.tx_hash ? 1 : a.tx_hash > b.tx_hash ? -1 : 0) || b.log_index - a.log_index)
        .map((row) => row.token_id);
      assert.equal(expected.length, 24);
      for (const limit of [1, 3, 7, 24, 50]) {
        const seen: number[] = [];
        let after: Position | undefined;
        for (;;) {
          const page = await listCardTransfersOf(testStore.store.db, me, limit, after);
          assert.ok(page.length <= limit);
          seen.push(...page.map((row) => Number(row.token_id)));
          if (page.length < limit) break;
          const last = page[page.length - 1]!;
          after = [Number(last.block_time), last.tx_hash, Number(last.log_index)];
        }
        assert.deepEqual(seen, expected, `pages of ${limit}`);
      }
    });
  });
}
