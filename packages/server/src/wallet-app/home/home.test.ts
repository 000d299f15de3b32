import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseEther, type Address } from 'viem';
import type { App } from '../../app.ts';
import { sha256Hex } from '../../custody/passwords.ts';
import { startTestChain, type TestChain } from '../../testing/chain-node.ts';
import { buildUser } from '../../testing/factories.ts';
import { openTestApp, type TestApp, type TestServices } from '../../testing/test-services.ts';
import { FaucetLimit } from './faucet-limit.ts';

/** The home screen: balances per EVM chain, the non-EVM addresses with the PIN, test coins on embedded chains only. */
describe('wallet-app home', () => {
  let external: TestChain;
  let testApp: TestApp;
  let services: TestServices;
  let app: App;

  before(async () => {
    external = await startTestChain({ chainId: 1 });
    testApp = await openTestApp({
      chains: { ethereum: { mode: 'external', rpcUrl: external.rpcUrl, chainId: 1, messagePrefix: '\x19Ethereum Signed Message:\n' }, polygon: null },
      walletApp: { sessionLifetimeSeconds: 3600, faucetCoins: 2.5, faucetIntervalSeconds: 3600 },
    });
    ({ services, app } = testApp);
  });
  after(async () => {
    await testApp?.cleanup();
    await external?.stop();
  });

  const signedIn = async () => {
    const member = await buildUser(services);
    const token = (await app.inject({ method: 'POST', url: '/v2/wallet-app/sessions', payload: { email: member.user.email, password: sha256Hex(member.password) } })).json().session_token;
    const call = (method: 'GET' | 'POST', url: string, payload?: object) => app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    return { ...member, call };
  };

  test('addresses and balances on every EVM chain; the faucet sends test coins on the embedded chain only', async () => {
    const member = await signedIn();
    const home = (await member.call('GET', '/v2/wallet-app/home')).json();
    assert.deepEqual(
      home.chains.map((chain: Record<string, unknown>) => [chain.chain, chain.chain_id, chain.address, chain.coins, chain.faucet]),
      [
        ['main', 31337, member.user.main_address, '0', true],
        ['ethereum', 1, member.user.main_address, '0', false],
      ],
    );
    assert.equal(home.other_chains, null, 'a member made by the CLI shows them once with the PIN');

    const sent = await member.call('POST', '/v2/wallet-app/faucet', { chain: 'main' });
    assert.equal(sent.statusCode, 200, sent.body);
    assert.equal(sent.json().coins, '2.5');
    const onChain = await services.chains.get('main').client.getBalance({ address: member.user.main_address as Address });
    assert.equal(onChain, parseEther('2.5'));
    assert.equal(sent.json().balance, onChain.toString());
    assert.equal((await member.call('GET', '/v2/wallet-app/home')).json().chains[0].coins, '2.5');

    const again = await member.call('POST', '/v2/wallet-app/faucet', { chain: 'main' });
    assert.deepEqual([again.statusCode, again.json().code], [429, 429]);
    assert.ok(Number(again.headers['retry-after']) > 3500);

    const externalRefused = await member.call('POST', '/v2/wallet-app/faucet', { chain: 'ethereum' });
    assert.deepEqual([externalRefused.statusCode, externalRefused.json().code], [400, 6417]);
    assert.equal((await member.call('POST', '/v2/wallet-app/faucet', { chain: 'polygon' })).json().code, 6417);
    assert.equal(await services.chains.get('ethereum').client.getBalance({ address: member.user.main_address as Address }), 0n);
  });

  test('the non-EVM addresses with the PIN (4006 for a wrong one, nothing kept)', async () => {
    const member = await signedIn();
    const wrong = await member.call('POST', '/v2/wallet-app/home/other-chains', { pin: sha256Hex('000000') });
    assert.equal(wrong.json().code, 4006);
    assert.equal((await member.call('GET', '/v2/wallet-app/home')).json().other_chains, null);
    const shown = await member.call('POST', '/v2/wallet-app/home/other-chains', { pin: member.pinHash });
    assert.match(shown.json().other_chains.solana, /^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    assert.deepEqual((await member.call('GET', '/v2/wallet-app/home')).json().other_chains, shown.json().other_chains);
  });

  test('the faucet limit: once per interval, given back when the send fails', () => {
    const limit = new FaucetLimit(60);
    assert.equal(limit.take('a', 0), 0);
    assert.equal(limit.take('a', 1_000), 59);
    assert.equal(limit.take('b', 1_000), 0);
    limit.release('a');
    assert.equal(limit.take('a', 2_000), 0);
    assert.equal(limit.take('a', 62_000), 0);
  });
});
