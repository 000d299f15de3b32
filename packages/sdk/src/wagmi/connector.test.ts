import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { connect, createConfig, disconnect, getConnection, http, sendTransaction, signMessage, signTypedData, switchChain } from '@wagmi/core';
import { getAddress, parseEther, type Chain } from 'viem';
import { memoryStorage } from '../connection.ts';
import { approvingWallet, BASE, CHAINS, fakeService, MEMBER, OTHER, SIGNATURE, TX_HASH } from '../testing/fake-service.ts';
import { serviceChains, walletService } from './index.ts';

/** The connector under @wagmi/core's own actions (what wagmi's React hooks call), over the fake service. */
describe('walletService() wagmi connector', () => {
  async function setUp() {
    const service = fakeService(approvingWallet());
    const storage = memoryStorage();
    const chains = await serviceChains(BASE, service.fetch);
    const config = createConfig({
      chains,
      connectors: [walletService({ bappName: 'Dapp', baseUrl: BASE, fetch: service.fetch, storage, environment: 'other', showRequest: null })],
      transports: Object.fromEntries(chains.map((chain) => [chain.id, http()])) as never,
      storage: null,
    });
    return { service, storage, config, chains };
  }

  test('serviceChains: the service’s chains as viem chains with their read endpoints', async () => {
    const { chains } = await setUp();
    assert.deepEqual(
      chains.map((chain: Chain) => [chain.id, chain.name, chain.rpcUrls.default.http[0]]),
      CHAINS.map((chain) => [chain.chain_id, chain.chain, chain.rpc_url]),
    );
  });

  test('connect, sign, send and switch through wagmi’s actions; disconnect forgets the address', async () => {
    const { config, service, storage } = await setUp();
    const connector = config.connectors[0]!;
    assert.equal(connector.id, 'walletService');
    const connected = await connect(config, { connector });
    assert.deepEqual(connected.accounts, [getAddress(MEMBER)], 'checksummed, as wagmi expects');
    assert.equal(connected.chainId, 31337);
    assert.equal(getConnection(config).status, 'connected');

    assert.equal(await signMessage(config, { message: 'hello' }), SIGNATURE);
    assert.deepEqual(service.prepares().at(-1).message, { value: '0x68656c6c6f', is_hex_encoded: true, from: MEMBER });
    assert.equal(
      await signTypedData(config, { types: { Mail: [{ name: 'contents', type: 'string' }] }, primaryType: 'Mail', message: { contents: 'hi' } }),
      SIGNATURE,
    );
    assert.equal(service.prepares().at(-1).type, 'sign_typedData_v4');
    assert.equal(await sendTransaction(config, { to: OTHER, value: parseEther('0.5') }), TX_HASH);
    assert.deepEqual(service.prepares().at(-1).transaction, { to: OTHER, amount: '0.5', from: MEMBER });

    const switched = await switchChain(config, { chainId: 31339 });
    assert.equal((switched as { id: number }).id, 31339);
    assert.equal(getConnection(config).chainId, 31339);
    await signMessage(config, { message: 'on polygon' });
    assert.equal(service.prepares().at(-1).chain, 'polygon');
    await assert.rejects(switchChain(config, { chainId: 1 as never }), /not configured/i);

    await disconnect(config);
    assert.equal(getConnection(config).status, 'disconnected');
    assert.equal(storage.getItem('wallet-a2a.connection'), null);
  });

  test('a member’s cancel reaches wagmi as viem’s UserRejectedRequestError (4001)', async () => {
    const service = fakeService(approvingWallet((type) => (type === 'auth' ? { status: 'completed' } : { status: 'canceled' })));
    const chains = await serviceChains(BASE, service.fetch);
    const config = createConfig({
      chains,
      connectors: [walletService({ bappName: 'Dapp', baseUrl: BASE, fetch: service.fetch, storage: memoryStorage(), environment: 'other', showRequest: null })],
      transports: Object.fromEntries(chains.map((chain) => [chain.id, http()])) as never,
      storage: null,
    });
    await connect(config, { connector: config.connectors[0]! });
    await assert.rejects(signMessage(config, { message: 'no' }), (error: Error & { name: string }) => {
      assert.equal(error.name, 'UserRejectedRequestError');
      assert.equal((error as unknown as { code: number }).code, 4001);
      return true;
    });
  });
});
