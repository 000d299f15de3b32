import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodeFunctionData } from 'viem';
import { openTestApp, type TestApp } from '../testing/test-services.ts';
import { BAPP, callFromOperator, deployFromOperator, fixtureContracts, openAs, prepareKey, signedInMember } from '../a2a/testing/support.ts';
import { impersonatesOperator } from './request-facts.ts';

test("a BApp name that reads as the operator's is recognised through look-alike characters", () => {
  const names = ['wallet', 'wallet.example.com'];
  for (const name of ['Wallet', 'W4LLET', 'Wallet Support', '0fficial Wa1let', 'wallet.example.com', 'Wallet-Security Team', 'Wället Service'])
    assert.equal(impersonatesOperator(name, names), true, name);
  for (const name of ['Example BApp', 'Test BApp', 'Coffee Stamps', 'My Wallet Game', 'Support Desk'])
    assert.equal(impersonatesOperator(name, names), false, name);
});

describe('the confirmation view reads its facts from the chain', () => {
  let t: TestApp;
  before(async () => {
    t = await openTestApp();
  });
  after(() => t?.cleanup());

  test("send_token shows the token's symbol and decimals and the estimated fee; an operator-like name is flagged", async () => {
    const { token } = fixtureContracts();
    const member = await signedInMember(t.app, t.services, { coins: '1' });
    const contract = await deployFromOperator(t.services, token, ['Six', 'SIX', 6, 1_000_000_000n]);
    await callFromOperator(t.services, contract, encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [member.address, 10_000_000n] }));
    const to = '0xc000000000000000000000000000000000000002';
    const key = await prepareKey(t.app, { bapp: BAPP, type: 'send_token', transaction: { contract, to, amount: '1.5', from: member.address } });
    const view = (await openAs(t.app, member.token, key)).json();
    assert.deepEqual(view.token, { symbol: 'SIX', decimals: 6 });
    assert.equal(view.bapp.impersonates_operator, false);
    assert.ok(view.estimated_gas > 0);
    assert.ok(BigInt(view.estimated_fee) >= BigInt(view.estimated_gas), 'gas times a gas price of at least 1 wei');

    const fake = await prepareKey(t.app, { bapp: { name: 'Wallet Support' }, type: 'auth' });
    const flagged = (await openAs(t.app, member.token, fake)).json();
    assert.equal(flagged.bapp.impersonates_operator, true);
    assert.equal(flagged.estimated_fee, null);
  });
});
