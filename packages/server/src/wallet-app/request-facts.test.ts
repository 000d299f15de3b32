import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodeFunctionData, maxUint256, parseAbi, type Address } from 'viem';
import { cardNftAbi } from '@wallet-service/contracts';
import { openTestApp, type TestApp } from '../testing/test-services.ts';
import { approveAs, BAPP, callFromOperator, deployFromOperator, finalResult, fixtureContracts, mintCards, openAs, prepareKey, signedInMember } from '../a2a/testing/support.ts';
import { impersonatesOperator } from './request-facts.ts';
import { permit2TypedData, permitTypedData } from './testing/permits.ts';

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

describe('the warnings of a confirmation, read from the request, the chain and the member\'s own transactions', () => {
  let t: TestApp;
  before(async () => {
    t = await openTestApp();
  });
  after(() => t?.cleanup());

  const other = '0xc000000000000000000000000000000000000003' as Address;
  const erc20 = parseAbi(['function approve(address spender, uint256 amount)', 'function transferFrom(address from, address to, uint256 amount)']);

  test('every kind of warning, each with its reason in words; the service\'s card contract named; a harmless call has none', async () => {
    const { token, target } = fixtureContracts();
    const member = await signedInMember(t.app, t.services, { coins: '1' });
    const cards = await mintCards(t.services, [member.address, member.address]);
    const cardContract = (cards.contractAddress as string).toLowerCase();
    const six = await deployFromOperator(t.services, token, ['Six', 'SIX', 6, 1_000_000_000n]);
    await callFromOperator(t.services, six, encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [member.address, 10_000_000n] }));
    const targetAddress = await deployFromOperator(t.services, target);

    const viewOf = async (body: object) => (await openAs(t.app, member.token, await prepareKey(t.app, { bapp: BAPP, ...body }))).json();
    const call = (to: string, data: string) => viewOf({ type: 'execute_contract', transaction: { to, encoded_function_call: data } });
    const kinds = (view: { warnings: Array<{ kind: string; reason: string }> }) => view.warnings.map((warning) => warning.kind).sort();

    const approvalForAll = await call(cardContract, encodeFunctionData({ abi: cardNftAbi, functionName: 'setApprovalForAll', args: [other, true] }));
    assert.deepEqual(kinds(approvalForAll), ['approval_for_all', 'new_contract']);
    assert.deepEqual(approvalForAll.contracts, [{ address: cardContract, name: 'Example Cards', operated_by: 'Example Partner Ltd' }]);
    assert.match(approvalForAll.warnings[0].reason, /^This gives 0xC000…0003 control of all your cards and tokens of Example Cards \(0x/);
    assert.match(approvalForAll.warnings[1].reason, /You have never used Example Cards/);
    // Taking the approval back is safe.
    const revoke = await call(cardContract, encodeFunctionData({ abi: cardNftAbi, functionName: 'setApprovalForAll', args: [other, false] }));
    assert.deepEqual(kinds(revoke), ['new_contract']);

    const unlimited = await call(six, encodeFunctionData({ abi: erc20, functionName: 'approve', args: [other, maxUint256] }));
    assert.deepEqual(kinds(unlimited), ['new_contract', 'unlimited_approval']);
    assert.match(unlimited.warnings.find((w: { kind: string }) => w.kind === 'unlimited_approval').reason, /take any amount of your SIX/);
    const aboveBalance = await call(six, encodeFunctionData({ abi: erc20, functionName: 'approve', args: [other, 20_000_000n] }));
    assert.match(aboveBalance.warnings.find((w: { kind: string }) => w.kind === 'unlimited_approval').reason, /up to 20 SIX, more than the 10 you hold/);
    const withinBalance = await call(six, encodeFunctionData({ abi: erc20, functionName: 'approve', args: [other, 5_000_000n] }));
    assert.deepEqual(kinds(withinBalance), ['new_contract']);

    const moveCard = await call(cardContract, encodeFunctionData({ abi: cardNftAbi, functionName: 'transferFrom', args: [member.address, other, 1n] }));
    assert.deepEqual(kinds(moveCard), ['moves_own_asset', 'new_contract']);
    assert.match(moveCard.warnings[0].reason, /^This moves your card #1 of Example Cards \(0x.*\) out of your wallet to 0xC000…0003/);
    const safeMove = await call(cardContract, encodeFunctionData({ abi: cardNftAbi, functionName: 'safeTransferFrom', args: [member.address, other, 2n] }));
    assert.deepEqual(kinds(safeMove), ['moves_own_asset', 'new_contract']);
    const moveTokens = await call(six, encodeFunctionData({ abi: erc20, functionName: 'transferFrom', args: [member.address, other, 1_500_000n] }));
    assert.match(moveTokens.warnings[0].reason, /^This moves 1.5 SIX of yours/);
    // Someone else's card coming to her moves nothing of hers.
    const incoming = await call(cardContract, encodeFunctionData({ abi: cardNftAbi, functionName: 'transferFrom', args: [other, member.address, 1n] }));
    assert.deepEqual(kinds(incoming), ['new_contract']);

    const permit = await viewOf({ type: 'sign_typedData_v4', message: { value: JSON.stringify(permitTypedData(six, member.address, other)) } });
    assert.deepEqual(kinds(permit), ['permit']);
    assert.match(permit.warnings[0].reason, /lets 0xC000…0003 spend any amount of your SIX \(0x.*\) until 2030-01-01 00:00 UTC/);
    const permit2 = await viewOf({ type: 'sign_typedData_v4', message: { value: JSON.stringify(permit2TypedData(six, other)) } });
    assert.deepEqual(kinds(permit2), ['permit2']);
    assert.match(permit2.warnings[0].reason, /Permit2 PermitSingle lets 0xC000…0003 move your 0x/);

    // A call to a contract she used before, sending nothing of hers: no warning.
    const add = (x: bigint) => encodeFunctionData({ abi: target.abi, functionName: 'add', args: [x] });
    const first = await prepareKey(t.app, { bapp: BAPP, type: 'execute_contract', transaction: { to: targetAddress, encoded_function_call: add(1n), from: member.address } });
    assert.deepEqual(kinds((await openAs(t.app, member.token, first)).json()), ['new_contract']);
    assert.equal((await approveAs(t.app, member.token, first, member.pin)).statusCode, 200);
    assert.equal((await finalResult(t.app, first)).result.status, 'success');
    const harmless = await call(targetAddress, add(2n));
    assert.deepEqual(harmless.warnings, []);
    assert.deepEqual(harmless.contracts, []);
    const mail = await viewOf({ type: 'sign_typedData_v4', message: { value: JSON.stringify({ ...permitTypedData(six, member.address, other), primaryType: 'Mail', types: { Mail: [{ name: 'contents', type: 'string' }] }, message: { contents: 'hi' } }) } });
    assert.deepEqual(mail.warnings, []);
  });

  test('the balance after: coins less value and fee; tokens less the amount sent', async () => {
    const { token } = fixtureContracts();
    const member = await signedInMember(t.app, t.services, { coins: '1' });
    const six = await deployFromOperator(t.services, token, ['Six', 'SIX', 6, 1_000_000_000n]);
    await callFromOperator(t.services, six, encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [member.address, 10_000_000n] }));
    const coin = (await openAs(t.app, member.token, await prepareKey(t.app, { bapp: BAPP, type: 'send_coin', transaction: { to: other, amount: '0.25', from: member.address } }))).json();
    assert.equal(coin.coin_balance.before, 10n ** 18n + '');
    assert.equal(BigInt(coin.coin_balance.after), 10n ** 18n - 25n * 10n ** 16n - BigInt(coin.estimated_fee));
    assert.ok(BigInt(coin.estimated_fee) > 0n);
    assert.deepEqual(coin.warnings, []);
    const tokens = (await openAs(t.app, member.token, await prepareKey(t.app, { bapp: BAPP, type: 'send_token', transaction: { contract: six, to: other, amount: '2.5', from: member.address } }))).json();
    assert.deepEqual(tokens.token_balance, { before: '10000000', after: '7500000' });
    assert.equal(BigInt(tokens.coin_balance.after), 10n ** 18n - BigInt(tokens.estimated_fee));
  });
});
