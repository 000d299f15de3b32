import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodeFunctionData, parseEther, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { openTestApp, type TestApp } from '../../testing/test-services.ts';
import { deployFromOperator, fixtureContracts, setBalance } from '../testing/support.ts';
import { MAX_RPC_BATCH } from './schema.ts';

describe('GET /v2/a2a/chains and the read-only JSON-RPC endpoint', () => {
  let testApp: TestApp;
  const holder = privateKeyToAccount(generatePrivateKey()).address;

  before(async () => {
    testApp = await openTestApp({ publicUrl: 'https://wallet.example/' });
    await setBalance(testApp.services, holder, parseEther('3'));
  });
  after(() => testApp?.cleanup());

  const rpc = (chain: string, payload: unknown) => testApp.app.inject({ method: 'POST', url: `/v2/a2a/rpc/${chain}`, payload: payload as object });
  const call = (method: string, params: unknown[] = [], id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });

  test('lists every configured EVM chain with its id and the endpoint on the public URL', async () => {
    const answer = await testApp.app.inject({ method: 'GET', url: '/v2/a2a/chains' });
    assert.equal(answer.statusCode, 200);
    const expected = testApp.services.chains.all().map((chain) => ({ chain: chain.name, chain_id: chain.chainId, rpc_url: `https://wallet.example/v2/a2a/rpc/${chain.name}` }));
    assert.deepEqual(answer.json(), { chains: expected });
    assert.equal(answer.json().chains[0].chain, 'main');
    const cors = await testApp.app.inject({ method: 'GET', url: '/v2/a2a/chains', headers: { origin: 'https://dapp.example' } });
    assert.ok(cors.headers['access-control-allow-origin'], 'dapps on other origins may read it');
    for (const chain of testApp.services.chains.all()) assert.ok(!answer.body.includes(chain.rpcUrl), "the node's own address is not shown");
  });

  test('reads pass on: chain id, a balance, a batch in order with the callers’ ids', async () => {
    const chainId = await rpc('main', call('eth_chainId', [], 'a'));
    assert.equal(chainId.statusCode, 200);
    assert.deepEqual(chainId.json(), { jsonrpc: '2.0', id: 'a', result: toHex(testApp.services.chains.get('main').chainId) });
    const batch = await rpc('main', [call('eth_getBalance', [holder, 'latest'], 7), call('eth_blockNumber', [], 8)]);
    assert.equal(batch.statusCode, 200);
    const [balance, block] = batch.json();
    assert.deepEqual(balance, { jsonrpc: '2.0', id: 7, result: toHex(parseEther('3')) });
    assert.equal(block.id, 8);
    assert.match(block.result, /^0x[0-9a-f]+$/);
  });

  test('a reverting eth_call answers the node’s error with its revert data, as viem expects', async () => {
    const target = await deployFromOperator(testApp.services, fixtureContracts().target);
    const data = encodeFunctionData({ abi: fixtureContracts().target.abi, functionName: 'add', args: [500n] });
    const answer = await rpc('main', call('eth_call', [{ to: target, data }, 'latest']));
    assert.equal(answer.statusCode, 200);
    const { error } = answer.json();
    assert.equal(error.code, 3);
    assert.match(error.message, /x must be below 100/);
    assert.match(error.data, /^0x08c379a0/);
  });

  test('anything but a read is refused with -32601 and never reaches the node', async () => {
    const before = await testApp.services.chains.get('main').client.getBalance({ address: holder });
    for (const method of ['anvil_setBalance', 'eth_sendTransaction', 'eth_sendRawTransaction', 'evm_mine', 'eth_newFilter', 'personal_sign', 'eth_accounts']) {
      const answer = await rpc('main', call(method, [holder, toHex(parseEther('99'))]));
      assert.equal(answer.statusCode, 200, method);
      assert.equal(answer.json().error.code, -32601, method);
    }
    assert.equal(await testApp.services.chains.get('main').client.getBalance({ address: holder }), before);
  });

  test('bad input gets the registry’s code: unknown chain 6417, a malformed call or an oversized batch 400', async () => {
    const unknown = await rpc('bitcoin', call('eth_chainId'));
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json().code, 6417);
    for (const payload of [{ id: 1 }, [], { method: 7 }, Array.from({ length: MAX_RPC_BATCH + 1 }, (_, index) => call('eth_chainId', [], index))]) {
      const answer = await rpc('main', payload);
      assert.equal(answer.statusCode, 400, JSON.stringify(payload).slice(0, 80));
      assert.equal(answer.json().code, 400);
    }
  });
});

