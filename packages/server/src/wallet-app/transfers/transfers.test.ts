import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodeFunctionData, erc20Abi, parseEther, parseUnits, type Address } from 'viem';
import type { App } from '../../app.ts';
import { sha256Hex } from '../../custody/passwords.ts';
import { callFromOperator, deployFromOperator, fixtureContracts, setBalance, signedInMember, walletApp } from '../../a2a/testing/support.ts';
import { openTestApp, type TestApp, type TestServices } from '../../testing/test-services.ts';

/**
 * Coins and tokens from the wallet app: the quote checks everything before the PIN, the send goes
 * through the outbox once per idempotency key, the home lists the chain's name, ticker and the
 * tokens the member holds, and the activity lists it all with names, a page at a time.
 */
describe('wallet-app coins and tokens', () => {
  let testApp: TestApp;
  let services: TestServices;
  let app: App;
  let token: Address;

  before(async () => {
    testApp = await openTestApp({ chains: { main: { displayName: 'Kaia', ticker: 'KAIA' } } as never, walletApp: { sessionLifetimeSeconds: 3600, faucetCoins: 2.5, faucetIntervalSeconds: 3600 } });
    ({ services, app } = testApp);
    token = await deployFromOperator(services, fixtureContracts().token, ['Shop Points', 'PTS', 6, parseUnits('1000000', 6)]);
  });
  after(async () => {
    await testApp?.cleanup();
  });

  const member = async (coins?: string, name?: string) => {
    const built = await signedInMember(app, services, name ? { name } : {});
    if (coins) await setBalance(services, built.address, parseEther(coins));
    return { ...built, call: (method: 'GET' | 'POST', url: string, payload?: object) => walletApp(app, built.token, method, url, payload) };
  };
  const client = () => services.chains.get('main').client;
  const tokenBalance = (holder: Address) => client().readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
  const giveTokens = (to: Address, amount: string) => callFromOperator(services, token, encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, parseUnits(amount, 6)] }));

  test('the home names the chain and its coin from config; the quote checks every refusal before the PIN and changes nothing', async () => {
    const sender = await member('3');
    const home = (await sender.call('GET', '/v2/wallet-app/home')).json();
    assert.deepEqual([home.chains[0].display_name, home.chains[0].ticker, home.chains[0].decimals, home.chains[0].coins, home.chains[0].tokens], ['Kaia', 'KAIA', 18, '3', []]);

    const to = (await member()).address;
    const quote = await sender.call('POST', '/v2/wallet-app/transfers/quote', { chain: 'main', amount: '1.25', to_address: to });
    assert.equal(quote.statusCode, 200, quote.body);
    const body = quote.json();
    assert.deepEqual([body.ticker, body.units, body.balance, body.token, body.to_address], ['KAIA', parseEther('1.25').toString(), parseEther('3').toString(), null, to.toLowerCase()]);
    assert.ok(BigInt(body.fee) > 0n && BigInt(body.max_fee) >= BigInt(body.fee), quote.body);

    const refusals: Array<[object, number]> = [
      [{ chain: 'main', amount: '3', to_address: to }, 6412],
      [{ chain: 'main', amount: '0', to_address: to }, 6404],
      [{ chain: 'main', amount: '0.0000000000000000001', to_address: to }, 6404],
      [{ chain: 'main', amount: '1', to_address: '0x0000000000000000000000000000000000000000' }, 6403],
      [{ chain: 'main', amount: '1', to_address: sender.address }, 6403],
      [{ chain: 'bitcoin', amount: '1', to_address: to }, 6417],
      [{ chain: 'main', amount: '1', to_address: to, token: to }, 6405],
      [{ chain: 'main', amount: '1' }, 400],
      [{ chain: 'main', amount: '1 coin', to_address: to }, 400],
      [{ chain: 'main', amount: '5', to_address: to, token }, 6412],
    ];
    for (const [payload, code] of refusals) {
      const refused = await sender.call('POST', '/v2/wallet-app/transfers/quote', payload);
      assert.equal(refused.json().code, code, `${JSON.stringify(payload)}: ${refused.body}`);
      assert.ok(refused.statusCode < 500);
      const sent = await sender.call('POST', '/v2/wallet-app/transfers', { ...payload, pin: sender.pinHash, idempotency_key: `refused-${code}-${Math.random()}` });
      assert.equal(sent.json().code, code, `send ${JSON.stringify(payload)}: ${sent.body}`);
    }
    assert.equal(await client().getBalance({ address: to }), 0n);
    assert.equal(await client().getBalance({ address: sender.address }), parseEther('3'));
  });

  test('coins: a wrong PIN sends nothing; ten identical sends with one key send once; the key with another amount is 4090', async () => {
    const sender = await member('5');
    const receiver = await member();
    const payload = { chain: 'main', amount: '1.5', to_address: receiver.address, idempotency_key: 'send-coins-0001' };
    const wrong = await sender.call('POST', '/v2/wallet-app/transfers', { ...payload, pin: sha256Hex('000000') });
    assert.equal(wrong.json().code, 4006);
    assert.equal(await client().getBalance({ address: receiver.address }), 0n);

    const answers = await Promise.all(Array.from({ length: 10 }, () => sender.call('POST', '/v2/wallet-app/transfers', { ...payload, pin: sender.pinHash })));
    for (const answer of answers) assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(new Set(answers.map((answer) => answer.json().hash)).size, 1);
    assert.equal(await client().getBalance({ address: receiver.address }), parseEther('1.5'));
    const receipt = await client().getTransactionReceipt({ hash: answers[0]!.json().hash });
    assert.equal(receipt.status, 'success');

    const again = await sender.call('POST', '/v2/wallet-app/transfers', { ...payload, amount: '1.50', pin: sender.pinHash });
    assert.equal(again.json().hash, answers[0]!.json().hash, 'a retry of the mined send answers it, unchecked against the new balance');
    const reused = await sender.call('POST', '/v2/wallet-app/transfers', { ...payload, amount: '1', pin: sender.pinHash });
    assert.deepEqual([reused.statusCode, reused.json().code], [400, 4090]);
    assert.equal(await client().getBalance({ address: receiver.address }), parseEther('1.5'));
  });

  test('tokens: sent on chain, listed on the home once seen, 4202 without coins for the fee; a person by name and phone', async () => {
    const sender = await member('1');
    const receiver = await member(undefined, 'Kim Minji');
    await giveTokens(sender.address, '10');
    const sent = await sender.call('POST', '/v2/wallet-app/transfers', { chain: 'main', token, amount: '2.5', to_address: receiver.address, pin: sender.pinHash, idempotency_key: 'send-token-0001' });
    assert.equal(sent.statusCode, 200, sent.body);
    assert.equal(await tokenBalance(receiver.address), parseUnits('2.5', 6));
    assert.equal(await tokenBalance(sender.address), parseUnits('7.5', 6));
    const tokens = (await sender.call('GET', '/v2/wallet-app/home')).json().chains[0].tokens;
    assert.deepEqual(tokens, [{ contract: token.toLowerCase(), symbol: 'PTS', decimals: 6, units: parseUnits('7.5', 6).toString(), amount: '7.5', listed: false }]);

    const byPhone = await sender.call('POST', '/v2/wallet-app/transfers/quote', { chain: 'main', token, amount: '1', to_person: { name: receiver.user.name, phone: receiver.user.phone } });
    assert.equal(byPhone.json().to_address, receiver.address.toLowerCase(), byPhone.body);

    await setBalance(services, sender.address, 0n);
    const noFee = await sender.call('POST', '/v2/wallet-app/transfers/quote', { chain: 'main', token, amount: '1', to_address: receiver.address });
    assert.equal(noFee.json().code, 4202, noFee.body);
  });

  test('activity: coins, tokens and test coins with names and links, newest first, paged without repeats; a bad cursor is 400', async () => {
    const sender = await member('4', 'Park Jisoo');
    const receiver = await member(undefined, 'Lee Sora');
    await giveTokens(sender.address, '3');
    assert.equal((await sender.call('POST', '/v2/wallet-app/faucet', { chain: 'main' })).statusCode, 200);
    const send = (extra: object, key: string) => sender.call('POST', '/v2/wallet-app/transfers', { chain: 'main', to_address: receiver.address, pin: sender.pinHash, idempotency_key: key, ...extra });
    assert.equal((await send({ amount: '0.5' }, 'activity-coin-1')).statusCode, 200);
    assert.equal((await send({ amount: '1', token }, 'activity-token-1')).statusCode, 200);
    assert.equal((await send({ amount: '0.25' }, 'activity-coin-2')).statusCode, 200);

    const all = (await sender.call('GET', '/v2/wallet-app/activity')).json();
    assert.deepEqual(
      all.items.map((item: Record<string, any>) => [item.kind, item.direction, item.units, item.symbol, item.counterparty.name, item.state]),
      [
        ['coin', 'sent', parseEther('0.25').toString(), 'KAIA', 'Lee Sora', 'mined'],
        ['token', 'sent', parseUnits('1', 6).toString(), 'PTS', 'Lee Sora', 'mined'],
        ['coin', 'sent', parseEther('0.5').toString(), 'KAIA', 'Lee Sora', 'mined'],
        ['test_coins', 'received', parseEther('2.5').toString(), 'KAIA', 'Test coins', 'mined'],
      ],
    );
    assert.equal(all.next_cursor, '');
    assert.match(all.items[0].tx_hash, /^0x[0-9a-f]{64}$/);

    const seen: string[] = [];
    let cursor = '';
    for (let page = 0; page < 5; page++) {
      const answer = await sender.call('GET', `/v2/wallet-app/activity?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(answer.statusCode, 200, answer.body);
      seen.push(...answer.json().items.map((item: Record<string, any>) => item.tx_hash));
      cursor = answer.json().next_cursor;
      if (!cursor) break;
    }
    assert.deepEqual(seen, all.items.map((item: Record<string, any>) => item.tx_hash));

    for (const bad of ['nonsense', Buffer.from(JSON.stringify({ money: ['x', 1] })).toString('base64url'), Buffer.from('{"other":[1,"a"]}').toString('base64url')]) {
      const refused = await sender.call('GET', `/v2/wallet-app/activity?cursor=${bad}`);
      assert.deepEqual([refused.statusCode, refused.json().code], [400, 400], refused.body);
    }
    const theirs = (await receiver.call('GET', '/v2/wallet-app/activity')).json();
    assert.deepEqual(theirs.items, [], 'coins received from outside the wallet app are not listed; the sender lists them');
  });
});
