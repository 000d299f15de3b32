/**
 * `@wallet-service/sdk/wagmi`: a wagmi connector over App2App, so a dapp's `useConnect`,
 * `useSendTransaction`, `useWriteContract`, `useSignMessage` and `useSignTypedData` reach the
 * member's wallet unchanged. `@wagmi/core` (2 or 3) is a peer dependency.
 */
import { ChainNotConfiguredError, createConnector } from '@wagmi/core';
import { getAddress, type Chain } from 'viem';
import { createProvider, fetchServiceChains, type ProviderOptions, type WalletServiceProvider } from '../provider/provider.ts';

export interface WalletServiceParameters extends Omit<ProviderOptions, 'chain'> {
  /** The connector's name in the dapp's wallet list; `Wallet` by default. */
  name?: string;
  /** The connector's icon (a URL or data URI). */
  icon?: string;
}

/**
 * The connector. Options are the provider's (`bappName`, `baseUrl`, `showRequest`, …).
 *
 * @example
 * const config = createConfig({ chains, connectors: [walletService({ bappName: 'My dapp', baseUrl })], transports });
 */
export function walletService(parameters: WalletServiceParameters) {
  let provider: WalletServiceProvider | undefined;
  let onAccounts: ((accounts: string[]) => void) | undefined;
  let onChain: ((chainId: string) => void) | undefined;
  let onDisconnect: ((error?: Error) => void) | undefined;

  return createConnector<WalletServiceProvider>((config) => ({
    id: 'walletService',
    name: parameters.name ?? 'Wallet',
    type: walletService.type,
    ...(parameters.icon ? { icon: parameters.icon } : {}),

    async connect({ chainId, withCapabilities } = {}) {
      const provider = await this.getProvider();
      const accounts = ((await provider.request({ method: 'eth_requestAccounts' })) as string[]).map((account) => getAddress(account));
      let currentChainId = await this.getChainId();
      if (chainId && currentChainId !== chainId) currentChainId = (await this.switchChain!({ chainId })).id;
      if (!onAccounts) {
        onAccounts = this.onAccountsChanged.bind(this);
        onChain = this.onChainChanged.bind(this);
        onDisconnect = this.onDisconnect.bind(this);
        provider.on('accountsChanged', onAccounts);
        provider.on('chainChanged', onChain);
        provider.on('disconnect', onDisconnect);
      }
      return {
        accounts: (withCapabilities ? accounts.map((address) => ({ address, capabilities: {} })) : accounts) as never,
        chainId: currentChainId,
      };
    },

    async disconnect() {
      const provider = await this.getProvider();
      if (onAccounts) provider.removeListener('accountsChanged', onAccounts);
      if (onChain) provider.removeListener('chainChanged', onChain);
      if (onDisconnect) provider.removeListener('disconnect', onDisconnect);
      onAccounts = onChain = onDisconnect = undefined;
      provider.disconnect();
    },

    async getAccounts() {
      return ((await (await this.getProvider()).request({ method: 'eth_accounts' })) as string[]).map((account) => getAddress(account));
    },

    async getChainId() {
      return Number(await (await this.getProvider()).request({ method: 'eth_chainId' }));
    },

    async getProvider() {
      if (!provider) {
        provider = createProvider(parameters);
        // The dapp's first chain is the one selected at first, when the service has it.
        const first = config.chains[0].id;
        await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: `0x${first.toString(16)}` }] }).catch(() => {});
      }
      return provider;
    },

    async isAuthorized() {
      try {
        return (await this.getAccounts()).length > 0;
      } catch {
        return false;
      }
    },

    async switchChain({ chainId }) {
      const chain = config.chains.find((candidate) => candidate.id === chainId);
      if (!chain) throw new ChainNotConfiguredError();
      await (await this.getProvider()).request({ method: 'wallet_switchEthereumChain', params: [{ chainId: `0x${chainId.toString(16)}` }] });
      return chain;
    },

    onAccountsChanged(accounts) {
      if (accounts.length === 0) this.onDisconnect();
      else config.emitter.emit('change', { accounts: accounts.map((account) => getAddress(account)) });
    },

    onChainChanged(chainId) {
      config.emitter.emit('change', { chainId: Number(chainId) });
    },

    onDisconnect() {
      config.emitter.emit('disconnect');
    },
  }));
}
walletService.type = 'walletService' as const;

/**
 * The service's EVM chains as viem chains (id, name, its read-only RPC endpoint), for a dapp's
 * `createConfig({ chains })` and `http()` transports: `GET /v2/a2a/chains` of `baseUrl`.
 */
export async function serviceChains(baseUrl: string, fetcher?: typeof fetch): Promise<[Chain, ...Chain[]]> {
  const chains = await fetchServiceChains(baseUrl.replace(/\/+$/, ''), fetcher ?? globalThis.fetch.bind(globalThis));
  return chains.map((chain) => ({
    id: chain.chain_id,
    name: chain.chain,
    nativeCurrency: { name: 'Coin', symbol: 'COIN', decimals: 18 },
    rpcUrls: { default: { http: [chain.rpc_url] } },
  })) as unknown as [Chain, ...Chain[]];
}

export { createProvider } from '../provider/provider.ts';
export type { WalletServiceProvider } from '../provider/provider.ts';
