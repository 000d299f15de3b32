import { serviceChains, walletService } from '@wallet-service/sdk/wagmi';
import { createConfig, http, type Config } from 'wagmi';

/**
 * The dapp's wagmi configuration: the chains it runs on, one wallet connector, and a public
 * transport per chain for reads. This page is served by the wallet service, so its chains and
 * their read endpoints are the service's.
 */
export async function loadConfig(): Promise<Config> {
  const chains = await serviceChains(location.origin);
  return createConfig({
    chains,
    connectors: [walletService({ bappName: 'Example dapp', baseUrl: location.origin, name: 'Wallet' })],
    transports: Object.fromEntries(chains.map((chain) => [chain.id, http()])),
  });
}
