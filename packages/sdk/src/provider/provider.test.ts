import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { memoryStorage } from '../connection.ts';
import type { KeyValueStorage } from '../types.ts';
import { approvingWallet, BASE, fakeService, KEY, MEMBER, OTHER, SIGNATURE, TX_HASH, type Answer, type Call } from '../testing/fake-service.ts';
import { createProvider, ProviderRpcError, weiToCoins, type PendingRequest, type ProviderOptions } from './index.ts';

/**
 * EIP-1193 behaviours, written from the EIP's text (and EIP-1474's codes), over a fake wallet
 * service: the App2App calls and the chain's JSON-RPC endpoint answered by a function of the path.
 */
function provider(answer: (call: Call) => Answer, options: Partial<ProviderOptions> = {}) {
  const service = fakeService(answer);
  const shown: PendingRequest[] = [];
  const storage: KeyValueStorage = memoryStorage();
  const instance = createProvider({
    bappName: 'Dapp',
    baseUrl: BASE,
    fetch: service.fetch,
    storage,
    environment: 'other',
    showRequest: (request) => void shown.push(request),
    ...options,
  });
  return { provider: instance, service, shown, storage };
}

async function rejection(promise: Promise<unknown>): Promise<ProviderRpcError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Error, 'a ProviderRpcError is an Error');
    assert.equal(typeof (error as ProviderRpcError).code, 'number');
    assert.ok(Number.isInteger((error as ProviderRpcError).code));
    assert.equal(typeof error.message, 'string');
    return error as ProviderRpcError;
  }
  assert.fail('expected a rejection');
}

async function connected(answer = approvingWallet(), options: Partial<ProviderOptions> = {}) {
  const made = provider(answer, options);
  assert.deepEqual(await made.provider.request({ method: 'eth_requestAccounts' }), [MEMBER]);
  return made;
}

describe('EIP-1193 conformance', () => {
  test('request(args) returns a Promise and answers eth_chainId as a hexadecimal string (EIP-695); net_version in decimal', async () => {
    const { provider: p } = provider(approvingWallet());
    const pending = p.request({ method: 'eth_chainId' });
    assert.ok(pending instanceof Promise);
    assert.equal(await pending, '0x7a69');
    assert.equal(await p.request({ method: 'net_version' }), '31337');
  });

  test('"connect" is emitted with { chainId } once the provider can serve requests', async () => {
    const { provider: p } = provider(approvingWallet());
    const info = await new Promise((resolve) => p.on('connect', resolve));
    assert.deepEqual(info, { chainId: '0x7a69' });
  });

  test('an invalid request argument is refused, not thrown synchronously', async () => {
    const { provider: p } = provider(approvingWallet());
    for (const args of [undefined, {}, { method: '' }, { method: 42 }]) {
      const error = await rejection(p.request(args as never));
      assert.equal(error.code, -32602);
    }
    assert.equal((await rejection(p.request({ method: 'eth_getBalance', params: { 0: MEMBER } }))).code, -32602, 'by-name params where an array is needed');
  });

  test('4100 Unauthorized: a method that needs an account before eth_requestAccounts; eth_accounts is [] then', async () => {
    const { provider: p, service } = provider(approvingWallet());
    assert.deepEqual(await p.request({ method: 'eth_accounts' }), []);
    for (const [method, params] of [
      ['eth_sendTransaction', [{ from: MEMBER, to: OTHER, value: '0x1' }]],
      ['personal_sign', ['0x68656c6c6f', MEMBER]],
      ['eth_signTypedData_v4', [MEMBER, '{}']],
    ] as const) {
      assert.equal((await rejection(p.request({ method, params }))).code, 4100, method);
    }
    assert.deepEqual(service.prepares(), [], 'nothing was sent to the wallet');
  });

  test('4200 Unsupported Method: signing methods the wallet does not offer, and unknown ones', async () => {
    const { provider: p, service } = await connected();
    for (const method of ['eth_sign', 'eth_signTransaction', 'eth_signTypedData_v3', 'eth_sendRawTransaction', 'wallet_requestPermissions', 'foo_bar']) {
      assert.equal((await rejection(p.request({ method, params: [] }))).code, 4200, method);
    }
    assert.equal(service.prepares().length, 1, 'only the auth');
  });

  test('eth_requestAccounts is an auth request; "accountsChanged" is emitted when eth_accounts changes, and only then', async () => {
    const { provider: p, service, shown, storage } = provider(approvingWallet());
    const changes: unknown[] = [];
    p.on('accountsChanged', (accounts: string[]) => changes.push(accounts));
    assert.deepEqual(await p.request({ method: 'eth_requestAccounts' }), [MEMBER]);
    assert.deepEqual(service.prepares(), [{ type: 'auth', bapp: { name: 'Dapp' } }]);
    assert.equal(shown.length, 1);
    assert.equal(shown[0]!.type, 'auth');
    assert.equal(shown[0]!.links.url, `${BASE}/?target=/a2a?request_key=${KEY}`);
    assert.deepEqual(await p.request({ method: 'eth_accounts' }), [MEMBER]);
    assert.deepEqual(changes, [[MEMBER]]);
    assert.deepEqual(await p.request({ method: 'eth_requestAccounts' }), [MEMBER], 'remembered: no second auth');
    assert.equal(service.prepares().length, 1);
    assert.deepEqual(changes, [[MEMBER]]);
    assert.ok(storage.getItem('wallet-a2a.connection'), 'kept as the SDK keeps it');

    p.disconnect();
    assert.deepEqual(await p.request({ method: 'eth_accounts' }), []);
    assert.equal(storage.getItem('wallet-a2a.connection'), null, 'forgotten at once');
    assert.deepEqual(changes, [[MEMBER], []]);
  });

  test('a provider made later over the same storage is connected already', async () => {
    const first = await connected();
    const again = createProvider({ bappName: 'Dapp', baseUrl: BASE, fetch: first.service.fetch, storage: first.storage, showRequest: null });
    assert.deepEqual(await again.request({ method: 'eth_accounts' }), [MEMBER]);
  });

  test('4001 User Rejected: the member cancels in the wallet', async () => {
    const { provider: p } = provider(approvingWallet(() => ({ status: 'canceled' })));
    const error = await rejection(p.request({ method: 'eth_requestAccounts' }));
    assert.equal(error.code, 4001);
    assert.deepEqual(error.data, { request_key: KEY, status: 'canceled' });
    assert.deepEqual(await p.request({ method: 'eth_accounts' }), []);
  });

  test('4001 User Rejected: Cancel in the BApp’s dialog ends the wait at once', async () => {
    const wallet = approvingWallet();
    let hidden = 0;
    const { provider: p, service } = provider((call) => (call.path.startsWith('/v2/a2a/result') ? (call.path.includes('wait=') ? 'hang' : { body: { request_key: KEY, expiration_time: 1, status: 'requested' } }) : wallet(call)), {
      showRequest: (request) => {
        setTimeout(() => request.cancel(), 0);
        return () => void hidden++;
      },
    });
    // The first read answers "requested"; the long-poll after it hangs until the cancel aborts it.
    const error = await rejection(p.request({ method: 'eth_requestAccounts' }));
    assert.equal(error.code, 4001);
    assert.deepEqual(error.data, { request_key: KEY });
    assert.equal(hidden, 1, 'the dialog is hidden');
    assert.deepEqual(await p.request({ method: 'eth_accounts' }), []);
    assert.ok(service.calls.some((call) => call.path.includes('wait=')), 'it was waiting on the long-poll');
  });

  test('eth_sendTransaction without data is send_coin (amount in coins) and answers the transaction hash once approved', async () => {
    const { provider: p, service } = await connected();
    assert.equal(await p.request({ method: 'eth_sendTransaction', params: [{ from: MEMBER, to: OTHER, value: '0x14d1120d7b160000', gas: '0x5208' }] }), TX_HASH);
    assert.deepEqual(service.prepares().at(-1), { type: 'send_coin', chain: 'main', bapp: { name: 'Dapp' }, transaction: { to: OTHER, amount: '1.5', from: MEMBER } });
  });

  test('eth_sendTransaction with data is execute_contract (encoded_function_call, value in wei)', async () => {
    const { provider: p, service } = await connected();
    const data = '0x1003e2d2000000000000000000000000000000000000000000000000000000000000002a';
    assert.equal(await p.request({ method: 'eth_sendTransaction', params: [{ from: MEMBER, to: OTHER, value: '0x3e8', data }] }), TX_HASH);
    assert.deepEqual(service.prepares().at(-1), {
      type: 'execute_contract',
      chain: 'main',
      bapp: { name: 'Dapp' },
      transaction: { to: OTHER, value: '1000', encoded_function_call: data, from: MEMBER },
    });
  });

  test('eth_sendTransaction refusals: another account (4100), a coin amount past 6 decimals, no recipient, another chain (-32602)', async () => {
    const { provider: p, service } = await connected();
    const before = service.prepares().length;
    assert.equal((await rejection(p.request({ method: 'eth_sendTransaction', params: [{ from: OTHER, to: OTHER, value: '0x1' }] }))).code, 4100);
    const decimals = await rejection(p.request({ method: 'eth_sendTransaction', params: [{ from: MEMBER, to: OTHER, value: '0x1' }] }));
    assert.equal(decimals.code, -32602);
    assert.deepEqual(decimals.data, { code: 4072, err: 'send token amount decimal places exceeded' });
    assert.equal((await rejection(p.request({ method: 'eth_sendTransaction', params: [{ from: MEMBER, data: '0x6080' }] }))).code, -32602);
    assert.equal((await rejection(p.request({ method: 'eth_sendTransaction', params: [{ from: MEMBER, to: OTHER, chainId: '0x1' }] }))).code, -32602);
    assert.equal(service.prepares().length, before, 'nothing was sent to the wallet');
  });

  test('a refusal of the service carries its code in data: a revert is -32003, bad params -32602', async () => {
    const wallet = approvingWallet();
    let refusal = { code: 6414, err: 'x must be below 100', error: { code: 6414, message: 'x must be below 100' } };
    const { provider: p } = await connected((call) => (call.path === '/v2/a2a/prepare' && call.body.type !== 'auth' ? { status: 400, body: refusal } : wallet(call)));
    const data = '0x1003e2d2';
    const reverted = await rejection(p.request({ method: 'eth_sendTransaction', params: [{ from: MEMBER, to: OTHER, data }] }));
    assert.equal(reverted.code, -32003);
    assert.deepEqual(reverted.data, { code: 6414, err: 'x must be below 100', message: 'x must be below 100' });
    refusal = { code: 6403, err: 'invalid to address', error: { code: 6403, message: 'body/transaction/to: invalid' } };
    const invalid = await rejection(p.request({ method: 'eth_sendTransaction', params: [{ from: MEMBER, to: OTHER, data }] }));
    assert.equal(invalid.code, -32602);
    assert.equal((invalid.data as { code: number }).code, 6403);
  });

  test('personal_sign is sign_message_eip191 of the hex bytes, or the chain-prefixed sign_message when asked', async () => {
    const { provider: p, service } = await connected();
    assert.equal(await p.request({ method: 'personal_sign', params: ['0x68656c6c6f', MEMBER] }), SIGNATURE);
    assert.deepEqual(service.prepares().at(-1), { type: 'sign_message_eip191', chain: 'main', bapp: { name: 'Dapp' }, message: { value: '0x68656c6c6f', is_hex_encoded: true, from: MEMBER } });
    const chainPrefixed = await connected(approvingWallet(), { personalSign: 'chain' });
    await chainPrefixed.provider.request({ method: 'personal_sign', params: ['plain words', MEMBER] });
    assert.deepEqual(chainPrefixed.service.prepares().at(-1), { type: 'sign_message', chain: 'main', bapp: { name: 'Dapp' }, message: { value: 'plain words', from: MEMBER } });
  });

  test('eth_signTypedData_v4 is sign_typedData_v4 of the JSON text', async () => {
    const { provider: p, service } = await connected();
    const typed = JSON.stringify({ types: { EIP712Domain: [] }, primaryType: 'EIP712Domain', domain: {}, message: {} });
    assert.equal(await p.request({ method: 'eth_signTypedData_v4', params: [MEMBER, typed] }), SIGNATURE);
    assert.deepEqual(service.prepares().at(-1), { type: 'sign_typedData_v4', chain: 'main', bapp: { name: 'Dapp' }, message: { value: typed, from: MEMBER } });
  });

  test('wallet_switchEthereumChain among the service’s chains: "chainChanged" with the hex id; 4902 for another; requests then name the chain', async () => {
    const { provider: p, service } = await connected();
    const changes: string[] = [];
    p.on('chainChanged', (chainId: string) => changes.push(chainId));
    assert.equal(await p.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x7a6b' }] }), null);
    assert.equal(await p.request({ method: 'eth_chainId' }), '0x7a6b');
    assert.equal(await p.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x7a6b' }] }), null);
    assert.deepEqual(changes, ['0x7a6b'], 'no event when the chain stays');
    assert.equal((await rejection(p.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x1' }] }))).code, 4902);
    assert.equal((await rejection(p.request({ method: 'wallet_addEthereumChain', params: [{ chainId: '0x1', chainName: 'Ethereum', rpcUrls: ['https://rpc.example'] }] }))).code, 4902);
    assert.equal(await p.request({ method: 'wallet_addEthereumChain', params: [{ chainId: '0x7a69' }] }), null, 'a chain the service has is switched to');
    assert.deepEqual(changes, ['0x7a6b', '0x7a69']);
    await p.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x7a6b' }] });
    await p.request({ method: 'personal_sign', params: ['0x01', MEMBER] });
    assert.equal(service.prepares().at(-1).chain, 'polygon');
  });

  test('reads go to the selected chain’s endpoint as they are; its errors keep their code and data; -32601 there is 4200', async () => {
    const wallet = approvingWallet();
    const { provider: p, service } = provider((call) => {
      if (!call.path.startsWith('/v2/a2a/rpc/')) return wallet(call);
      const { id, method } = call.body;
      if (method === 'eth_getBalance') return { body: { jsonrpc: '2.0', id, result: '0x10' } };
      if (method === 'eth_call') return { body: { jsonrpc: '2.0', id, error: { code: 3, message: 'execution reverted', data: '0x08c379a0' } } };
      return { body: { jsonrpc: '2.0', id, error: { code: -32601, message: 'not available' } } };
    });
    assert.equal(await p.request({ method: 'eth_getBalance', params: [MEMBER, 'latest'] }), '0x10');
    const read = service.calls.find((call) => call.path === '/v2/a2a/rpc/main')!;
    assert.equal(read.method, 'POST');
    assert.deepEqual({ ...read.body, id: 0 }, { jsonrpc: '2.0', id: 0, method: 'eth_getBalance', params: [MEMBER, 'latest'] });
    const reverted = await rejection(p.request({ method: 'eth_call', params: [{ to: OTHER, data: '0x' }, 'latest'] }));
    assert.equal(reverted.code, 3);
    assert.equal(reverted.data, '0x08c379a0');
    assert.equal((await rejection(p.request({ method: 'eth_newFilter', params: [{}] }))).code, 4200);
  });

  test('4901 Chain Disconnected: the chain’s endpoint cannot be reached', async () => {
    const wallet = approvingWallet();
    const { provider: p } = provider((call) => (call.path.startsWith('/v2/a2a/rpc/') ? 'fail' : wallet(call)));
    assert.equal((await rejection(p.request({ method: 'eth_blockNumber' }))).code, 4901);
  });

  test('4900 Disconnected: the service cannot be reached; the next request tries again and "connect" follows', async () => {
    let down = true;
    const wallet = approvingWallet();
    const { provider: p } = provider((call) => (down ? 'fail' : wallet(call)));
    assert.equal((await rejection(p.request({ method: 'eth_chainId' }))).code, 4900);
    assert.equal((await rejection(p.request({ method: 'eth_requestAccounts' }))).code, 4900);
    down = false;
    const connect = new Promise((resolve) => p.once('connect', resolve));
    assert.equal(await p.request({ method: 'eth_chainId' }), '0x7a69');
    assert.deepEqual(await connect, { chainId: '0x7a69' });
  });

  test('removeListener (and off) stop the events; a throwing listener does not stop the others', async () => {
    const { provider: p } = await connected();
    const seen: string[] = [];
    const listener = (chainId: string) => seen.push(chainId);
    p.on('chainChanged', () => {
      throw new Error('listener bug');
    });
    const reported: unknown[] = [];
    const global = globalThis as { reportError?: (error: unknown) => void };
    const before = global.reportError;
    global.reportError = (error) => reported.push(error);
    try {
      p.on('chainChanged', listener);
      await p.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x7a6b' }] });
      p.off('chainChanged', listener);
      await p.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x7a69' }] });
    } finally {
      global.reportError = before;
    }
    assert.deepEqual(seen, ['0x7a6b']);
    assert.equal(reported.length, 2, 'the listener’s error is reported (reportError), not swallowed');
  });

  test('wallet_watchAsset: cards (ERC721) are shown by the wallet anyway (true); tokens are 4200; bad params -32602', async () => {
    const { provider: p } = await connected();
    assert.equal(await p.request({ method: 'wallet_watchAsset', params: { type: 'ERC721', options: { address: OTHER, tokenId: '1' } } }), true);
    assert.equal((await rejection(p.request({ method: 'wallet_watchAsset', params: { type: 'ERC20', options: { address: OTHER, symbol: 'T', decimals: 18 } } }))).code, 4200);
    assert.equal((await rejection(p.request({ method: 'wallet_watchAsset', params: {} }))).code, -32602);
  });
});

describe('weiToCoins', () => {
  test('coins with up to 6 decimals; null past them', () => {
    assert.equal(weiToCoins(0n), '0');
    assert.equal(weiToCoins(10n ** 18n), '1');
    assert.equal(weiToCoins(1_500_000_000_000_000_000n), '1.5');
    assert.equal(weiToCoins(1_000_000_000_000n), '0.000001');
    assert.equal(weiToCoins(1n), null);
  });
});
