import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeFunctionData, parseEther, type Address } from 'viem';
import type { App } from '../../app.ts';
import { epochSeconds } from '../../store/database.ts';
import { openTestApp, type TestApp, type TestServices } from '../../testing/test-services.ts';
import { createFeeCredential } from './commands.ts';
import {
  approveAs,
  BAPP,
  callFromOperator,
  deployFromOperator,
  finalResult,
  fixtureContracts,
  prepare,
  prepareKey,
  signedInMember,
} from '../testing/support.ts';

/** kas_authorization_key: the fee payer bound to the credential pays; the member's coins move only by value. */
describe('App2App fee delegation', () => {
  let testApp: TestApp;
  let services: TestServices;
  let app: App;
  let credential: Awaited<ReturnType<typeof createFeeCredential>>;
  const chain = () => services.chains.get('main').client;

  before(async () => {
    testApp = await openTestApp();
    ({ services, app } = testApp);
    credential = await createFeeCredential(services, { fundCoins: 5 });
  });
  after(() => testApp?.cleanup());

  async function settled(requestKey: string): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const row = await services.store.db.selectFrom('a2a_requests').select('fee_settled_at').where('request_key', '=', requestKey).executeTakeFirstOrThrow();
      if (row.fee_settled_at !== null) {
        const settlement = await services.outbox.findByIdempotencyKey(`a2a-fee-settle:${requestKey}`);
        if (settlement) await services.outbox.waitForFinal(settlement.id);
        return;
      }
      await sleep(100);
    }
    throw new Error(`fee of ${requestKey} not settled`);
  }

  test('send_coin: the member balance drops by exactly the amount sent; the fee payer pays the fee', async () => {
    const member = await signedInMember(app, services, { coins: '1' });
    const to = '0xb000000000000000000000000000000000000001' as Address;
    const payerBefore = await chain().getBalance({ address: credential.fee_payer_address });
    const key = await prepareKey(app, {
      bapp: { ...BAPP, kas_authorization_key: credential.credential },
      type: 'send_coin',
      transaction: { to, amount: '0.25', from: member.address },
    });
    assert.equal((await approveAs(app, member.token, key, member.pin)).statusCode, 200);
    assert.equal((await finalResult(app, key)).result.status, 'success');
    await settled(key);
    assert.equal(await chain().getBalance({ address: member.address }), parseEther('0.75'));
    assert.equal(await chain().getBalance({ address: to }), parseEther('0.25'));
    assert.ok((await chain().getBalance({ address: credential.fee_payer_address })) < payerBefore);
  });

  test('execute_contract with value: exact as well', async () => {
    const { target } = fixtureContracts();
    const contract = await deployFromOperator(services, target);
    const member = await signedInMember(app, services, { coins: '2' });
    const key = await prepareKey(app, {
      bapp: { ...BAPP, kas_authorization_key: credential.credential },
      type: 'execute_contract',
      transaction: { to: contract, value: parseEther('0.5').toString(), abi: target.abi.find((item) => item.type === 'function' && item.name === 'add'), params: ['3'] },
    });
    assert.equal((await approveAs(app, member.token, key, member.pin)).statusCode, 200);
    assert.equal((await finalResult(app, key)).result.status, 'success');
    await settled(key);
    assert.equal(await chain().getBalance({ address: member.address }), parseEther('1.5'));
  });

  test('send_token by a member with no coins: the fee payer advances the fee; the member pays nothing', async () => {
    const { token } = fixtureContracts();
    const contract = await deployFromOperator(services, token, ['Coinless', 'CL', 18, parseEther('100')]);
    const member = await signedInMember(app, services);
    await callFromOperator(services, contract, encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [member.address, parseEther('10')] }));
    const to = '0xb000000000000000000000000000000000000002' as Address;
    assert.equal(await chain().getBalance({ address: member.address }), 0n);

    const plain = await prepare(app, { bapp: BAPP, type: 'send_token', transaction: { contract, to, amount: '1', from: member.address } });
    assert.deepEqual(plain.json(), { code: 6412, err: 'insufficient funds' }, 'without delegation the member cannot pay the fee');

    const key = await prepareKey(app, {
      bapp: { ...BAPP, kas_authorization_key: credential.credential },
      type: 'send_token',
      transaction: { contract, to, amount: '1', from: member.address },
    });
    assert.equal((await approveAs(app, member.token, key, member.pin)).statusCode, 200);
    assert.equal((await finalResult(app, key)).result.status, 'success');
    await settled(key);
    assert.equal(await chain().readContract({ address: contract, abi: token.abi, functionName: 'balanceOf', args: [to] }), parseEther('1'));
    // The member received the advance A and paid the fee f; the settlement covers f beyond A, any surplus of A stays.
    const advanceRow = await services.store.db.selectFrom('outbox_transactions').select('value_wei').where('idempotency_key', '=', `a2a-fee-advance:${key}`).executeTakeFirstOrThrow();
    const advance = BigInt(advanceRow.value_wei);
    const sent = await services.outbox.findByIdempotencyKey(key);
    const receipt = await chain().getTransactionReceipt({ hash: sent!.txHash });
    const fee = receipt.gasUsed * receipt.effectiveGasPrice;
    assert.ok(advance > 0n && fee > 0n);
    assert.equal(await chain().getBalance({ address: member.address }), advance > fee ? advance - fee : 0n);
  });

  test('6418 for an unknown credential; 6416 where delegation cannot apply', async () => {
    const transfer = { type: 'send_coin', transaction: { to: '0xb000000000000000000000000000000000000003', amount: '1' } };
    const unknown = await prepare(app, { bapp: { ...BAPP, kas_authorization_key: 'fd_unknown' }, ...transfer });
    // The refusal names the field: bapp/kas_authorization_key.
    const invalid = { code: 6418, err: 'invalid fee-delegation credential' };
    assert.deepEqual([unknown.statusCode, unknown.json()], [400, { ...invalid, error: { ...invalid, message: 'body/bapp/kas_authorization_key: invalid fee-delegation credential' } }]);
    const notForRequest = { code: 6416, err: 'the fee-delegation credential cannot be used with this request' };
    const cannot = (detail: string) => ({ ...notForRequest, error: { ...notForRequest, message: `body/bapp/kas_authorization_key: ${detail}` } });
    for (const body of [
      { type: 'auth' },
      { type: 'sign_message', message: { value: 'hi' } },
      { type: 'sign_typedData_v4', message: { value: { types: { M: [{ name: 'a', type: 'uint256' }] }, primaryType: 'M', domain: {}, message: { a: 1 } } } },
    ]) {
      const response = await prepare(app, { bapp: { ...BAPP, kas_authorization_key: credential.credential }, ...body });
      assert.deepEqual([response.statusCode, response.json()], [400, cannot(`${body.type} sends no transaction`)]);
    }
    // A credential bound to another chain.
    await services.store.db.updateTable('a2a_fee_credentials').set({ chain: 'polygon' }).where('id', '=', credential.id).execute();
    try {
      const otherChain = await prepare(app, { bapp: { ...BAPP, kas_authorization_key: credential.credential }, ...transfer });
      assert.deepEqual([otherChain.statusCode, otherChain.json()], [400, cannot('the credential is for chain polygon')]);
    } finally {
      await services.store.db.updateTable('a2a_fee_credentials').set({ chain: 'main' }).where('id', '=', credential.id).execute();
    }
    // Revoked after prepare: the approval fails with 6418.
    const member = await signedInMember(app, services, { coins: '1' });
    const key = await prepareKey(app, { bapp: { ...BAPP, kas_authorization_key: credential.credential }, ...transfer, transaction: { ...transfer.transaction, amount: '0.1' } });
    await services.store.db.updateTable('a2a_fee_credentials').set({ revoked_at: epochSeconds() }).where('id', '=', credential.id).execute();
    try {
      const approved = await approveAs(app, member.token, key, member.pin);
      assert.equal(approved.statusCode, 400);
      assert.equal(approved.json().error.code, 6418);
    } finally {
      await services.store.db.updateTable('a2a_fee_credentials').set({ revoked_at: null }).where('id', '=', credential.id).execute();
    }
  });
});
