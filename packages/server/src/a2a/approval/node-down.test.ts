import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Address } from 'viem';
import { findRequest } from '../requests/store.ts';
import { openTestApp, type TestApp } from '../../testing/test-services.ts';
import { approveAs, BAPP, openAs, prepareKey, result, signedInMember } from '../testing/support.ts';

// This file ends its embedded node for good, so it has an app of its own.
let t: TestApp;
before(async () => {
  t = await openTestApp();
});
after(() => t?.cleanup());

test('an approval while the chain node does not answer: 503, nothing sent, the request stays open to approve again', async () => {
  const { app, services } = t;
  const member = await signedInMember(app, services, { coins: '2' });
  const recipient = '0x00000000000000000000000000000000000b0b0b' as Address;
  const key = await prepareKey(app, { bapp: BAPP, type: 'send_coin', transaction: { from: member.address, to: recipient, amount: '0.5' } });
  assert.equal((await openAs(app, member.token, key)).statusCode, 200);

  await services.chains.get('main').node!.kill();
  for (let attempt = 0; attempt < 2; attempt++) {
    const approved = await approveAs(app, member.token, key, member.pin);
    assert.equal(approved.statusCode, 503, approved.body);
    assert.equal(approved.json().code, 503);
    assert.equal(approved.json().err, 'service unavailable');
  }

  // The BApp still sees the request waiting for the member, and nothing was signed or queued.
  assert.equal((await result(app, key)).json().status, 'requested');
  const row = (await findRequest(services.store.db, key))!;
  assert.equal(row.execution_id, null);
  assert.equal(row.status, 'requested');
  assert.equal(await services.outbox.findByIdempotencyKey(key), undefined);
});
