/**
 * `@wallet-service/sdk/provider`: an EIP-1193 provider over App2App, for viem (`custom(provider)`),
 * ethers (`new BrowserProvider(provider)`) and anything else that speaks `request({ method, params })`.
 */
export { createProvider, fetchServiceChains, weiToCoins } from './provider.ts';
export type { ProviderEvent, ProviderOptions, RequestArguments, ServiceChain, WalletServiceProvider } from './provider.ts';
export { showRequestDialog } from './dialog.ts';
export type { PendingRequest, ShowRequest } from './dialog.ts';
export { fromServiceError, ProviderErrorCodes, ProviderRpcError } from './errors.ts';
export type { ServiceErrorData } from './errors.ts';
