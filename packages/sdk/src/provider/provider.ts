import { createClient, isError, type A2aClient } from '../client.ts';
import { detectEnvironment, type NavigatorInfo } from '../links.ts';
import type { A2aError, ChainName, ClientOptions, Connection, RequestType, ResultAnswer } from '../types.ts';
import { showRequestDialog, type ShowRequest } from './dialog.ts';
import {
  fromServiceError,
  invalidParams,
  ProviderErrorCodes,
  ProviderRpcError,
  unauthorized,
  unsupportedMethod,
  userRejected,
} from './errors.ts';

/** One EVM chain of the service, as `GET /v2/a2a/chains` publishes it. */
export interface ServiceChain {
  /** `main`, `ethereum` or `polygon`: the `chain` of App2App requests. */
  chain: ChainName;
  chain_id: number;
  /** The service's read-only JSON-RPC endpoint of the chain (`eth_call`, `eth_getBalance`, …). */
  rpc_url: string;
}

export interface ProviderOptions extends ClientOptions {
  /** Shown to the member in the wallet with every request. */
  bappName: string;
  /** A client made elsewhere; the other client options are then ignored. */
  client?: A2aClient;
  /** The chain selected at first (`main` by default), until `wallet_switchEthereumChain`. */
  chain?: ChainName;
  /** The service's chains; fetched from `GET /v2/a2a/chains` when not given. */
  chains?: ServiceChain[];
  /** Read-only calls of a chain id go to this URL instead of the service's `rpc_url`. */
  rpcUrls?: Record<number, string>;
  /** `personal_sign` as `sign_message_eip191` (`eip191`, the default) or as the chain-prefixed `sign_message` (`chain`). */
  personalSign?: 'eip191' | 'chain';
  /** Shows a pending request (QR code, wallet link, Cancel); `showRequestDialog` by default, `null` shows nothing. */
  showRequest?: ShowRequest | null;
  /** Links the wallet offers after approval or failure (mobile: back to the BApp). */
  successLink?: string;
  failLink?: string;
}

export interface RequestArguments {
  readonly method: string;
  readonly params?: readonly unknown[] | object;
}

export type ProviderEvent = 'connect' | 'disconnect' | 'accountsChanged' | 'chainChanged' | 'message';
type Listener = (...args: any[]) => void;

/** An EIP-1193 provider whose accounts and signatures come from the member's wallet through App2App. */
export interface WalletServiceProvider {
  request(args: RequestArguments): Promise<unknown>;
  on(event: ProviderEvent | (string & {}), listener: Listener): WalletServiceProvider;
  once(event: ProviderEvent | (string & {}), listener: Listener): WalletServiceProvider;
  removeListener(event: ProviderEvent | (string & {}), listener: Listener): WalletServiceProvider;
  off(event: ProviderEvent | (string & {}), listener: Listener): WalletServiceProvider;
  /** Forgets the connection at once (the App2App policy) and emits `accountsChanged` with `[]`. */
  disconnect(): void;
  /** The service's chains (after the first call that needed them). */
  getChains(): Promise<ServiceChain[]>;
  readonly client: A2aClient;
  readonly isWalletService: true;
}

/** Methods answered by the wallet (App2App) or by the provider itself; every other `eth_`, `net_` or `web3_` method is a read of the chain. */
const SIGNING_METHODS_REFUSED = new Set([
  'eth_sign',
  'eth_signTransaction',
  'eth_signTypedData',
  'eth_signTypedData_v1',
  'eth_signTypedData_v3',
  'eth_sendRawTransaction',
  'eth_getEncryptionPublicKey',
  'eth_decrypt',
]);
const READ_PREFIX = /^(eth|net|web3)_/;

/** The service's EVM chains and their read-only endpoints: `GET /v2/a2a/chains`. */
export async function fetchServiceChains(baseUrl: string, fetcher: typeof fetch): Promise<ServiceChain[]> {
  const response = await fetcher(`${baseUrl}/v2/a2a/chains`, { headers: { accept: 'application/json' } });
  const body = (await response.json().catch(() => undefined)) as { chains?: ServiceChain[] } | undefined;
  if (!response.ok || !Array.isArray(body?.chains) || body.chains.length === 0) throw new Error(`GET /v2/a2a/chains answered HTTP ${response.status}`);
  return body.chains;
}

const hex = (value: number) => `0x${value.toString(16)}`;

function paramsArray(args: RequestArguments): readonly unknown[] {
  if (args.params === undefined) return [];
  if (Array.isArray(args.params)) return args.params;
  throw invalidParams(`${args.method} takes its params as an array`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseQuantity(value: unknown, what: string): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === 'string' && /^0x[0-9a-fA-F]*$/.test(value)) return value === '0x' ? 0n : BigInt(value);
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'bigint' && value >= 0n) return value;
  throw invalidParams(`${what} must be a hex quantity`);
}

function parseChainId(value: unknown): number {
  const given = isObject(value) ? value.chainId : undefined;
  if (typeof given === 'string' && /^0x[0-9a-fA-F]+$/.test(given)) return Number.parseInt(given, 16);
  if (typeof given === 'number' && Number.isSafeInteger(given)) return given;
  throw invalidParams('chainId must be a hex string');
}

/** Wei as coins with at most 6 decimals (the App2App send_coin limit); null when it has more. */
export function weiToCoins(wei: bigint): string | null {
  const whole = wei / 10n ** 18n;
  const fraction = wei % 10n ** 18n;
  if (fraction % 10n ** 12n !== 0n) return null;
  const decimals = (fraction / 10n ** 12n).toString().padStart(6, '0').replace(/0+$/, '');
  return decimals ? `${whole}.${decimals}` : whole.toString();
}

function openInNewTab(url: string): void {
  const page = globalThis as { open?: (url: string, target: string) => { opener: unknown } | null; location?: { assign(url: string): void } };
  // A new tab keeps this page, and the call waiting in it, alive while the wallet has the screen.
  const opened = page.open?.(url, '_blank');
  if (opened) opened.opener = null;
  else page.location?.assign(url);
}

/**
 * An EIP-1193 provider over App2App: `eth_requestAccounts` is an `auth` request, `eth_sendTransaction`
 * a `send_coin` or `execute_contract`, `personal_sign` and `eth_signTypedData_v4` the sign
 * requests, each confirmed by the member in the wallet (a link on a phone, a QR code on a
 * computer); reads go to the chain's JSON-RPC endpoint that the service publishes.
 *
 * @example
 * const provider = createProvider({ baseUrl: 'https://wallet.example.com', bappName: 'My dapp' });
 * const [address] = await provider.request({ method: 'eth_requestAccounts' });
 */
export function createProvider(options: ProviderOptions): WalletServiceProvider {
  if (!options || typeof options.bappName !== 'string' || options.bappName === '') throw new TypeError('bappName is required');
  const client = options.client ?? createClient({ openUrl: openInNewTab, ...options });
  const fetcher = options.fetch ?? globalThis.fetch.bind(globalThis);
  const show = options.showRequest === undefined ? showRequestDialog : options.showRequest;
  const listeners = new Map<string, Set<Listener>>();
  let chains: ServiceChain[] | undefined;
  let loading: Promise<ServiceChain[]> | undefined;
  let current: ServiceChain | undefined;
  let connected = false;
  let rpcId = 0;

  function emit(event: ProviderEvent, ...args: unknown[]): void {
    for (const listener of [...(listeners.get(event) ?? [])]) {
      try {
        listener(...args);
      } catch (error) {
        // A listener's failure must not break the provider or the other listeners: reported as the page reports its errors.
        const report = (globalThis as { reportError?: (error: unknown) => void }).reportError;
        if (report) report(error);
        else console.error(error);
      }
    }
  }

  function accountsOf(connection: Connection | null): string[] {
    const address = connection?.evm_address ?? connection?.main_address;
    return address ? [address] : [];
  }

  /** The chains, fetched once; a failure is 4900 (and `disconnect`) and the next call tries again. */
  function loadChains(): Promise<ServiceChain[]> {
    if (chains) return Promise.resolve(chains);
    loading ??= (async () => {
      try {
        const list = options.chains ?? (await fetchServiceChains(client.baseUrl, fetcher));
        if (list.length === 0) throw new Error('the service has no EVM chain');
        chains = list;
        current = list.find((chain) => chain.chain === (options.chain ?? 'main')) ?? list[0]!;
        if (!connected) {
          connected = true;
          emit('connect', { chainId: hex(current.chain_id) });
        }
        return list;
      } catch (error) {
        loading = undefined;
        if (connected) {
          connected = false;
          emit('disconnect', new ProviderRpcError(ProviderErrorCodes.disconnected, 'The wallet service cannot be reached.'));
        }
        throw new ProviderRpcError(ProviderErrorCodes.disconnected, `The wallet service cannot be reached: ${(error as Error).message}`);
      }
    })();
    return loading;
  }

  async function currentChain(): Promise<ServiceChain> {
    await loadChains();
    return current!;
  }

  /** The connected address; 4100 when there is none, or when `from` names another. */
  function requireAccount(from?: unknown): string {
    const [account] = accountsOf(client.getConnection());
    if (!account) throw unauthorized();
    if (from !== undefined && from !== null && (typeof from !== 'string' || from.toLowerCase() !== account.toLowerCase())) {
      throw unauthorized(`The account ${String(from)} is not the connected one.`);
    }
    return account;
  }

  /** Prepares a request, shows it to the member, and waits for the outcome; 4001 when canceled. */
  async function confirm<T extends RequestType>(type: T, prepared: { request_key: string } | A2aError): Promise<ResultAnswer<T>> {
    if (isError(prepared)) throw fromServiceError(prepared);
    const requestKey = prepared.request_key;
    const stop = new AbortController();
    let hide: (() => void) | void = undefined;
    try {
      const outcome = await client.request(requestKey);
      if (isError(outcome)) throw fromServiceError(outcome);
      const environment =
        outcome.environment ?? options.environment ?? detectEnvironment((globalThis as { navigator?: NavigatorInfo }).navigator);
      if (show) {
        const links = await client.getRequestUrl(requestKey);
        if (isError(links)) throw fromServiceError(links);
        hide = show({ requestKey, type, links, environment, cancel: () => stop.abort(userRejected({ request_key: requestKey })) });
      }
      const answer = await client.waitForResult(requestKey as never, { signal: stop.signal });
      if ('status' in answer && answer.status === 'canceled') throw userRejected({ request_key: requestKey, status: 'canceled' });
      if (isError(answer)) throw fromServiceError(answer as A2aError & { request_key?: string });
      return answer as ResultAnswer<T>;
    } catch (error) {
      if (error instanceof ProviderRpcError) throw error;
      throw new ProviderRpcError(ProviderErrorCodes.disconnected, `The wallet service cannot be reached: ${(error as Error).message}`);
    } finally {
      hide?.();
    }
  }

  function links() {
    return {
      bappName: options.bappName,
      ...(options.successLink ? { successLink: options.successLink } : {}),
      ...(options.failLink ? { failLink: options.failLink } : {}),
    };
  }

  async function requestAccounts(): Promise<string[]> {
    const known = accountsOf(client.getConnection());
    if (known.length > 0) return known;
    await loadChains();
    await confirm('auth', await client.prepare.auth(links()));
    // The client stored the addresses of the completed auth.
    const accounts = accountsOf(client.getConnection());
    emit('accountsChanged', accounts);
    return accounts;
  }

  async function sendTransaction(params: readonly unknown[]): Promise<string> {
    const tx = params[0];
    if (!isObject(tx)) throw invalidParams('eth_sendTransaction takes one transaction object');
    const from = requireAccount(tx.from);
    const chain = await currentChain();
    if (tx.chainId !== undefined && Number(parseQuantity(tx.chainId, 'chainId')) !== chain.chain_id) {
      throw invalidParams(`chainId ${String(tx.chainId)} is not the selected chain ${hex(chain.chain_id)}`);
    }
    if (typeof tx.to !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(tx.to)) throw invalidParams('to must be an address: contract creation is not supported');
    const value = parseQuantity(tx.value, 'value');
    const data = tx.data ?? tx.input;
    if (data !== undefined && data !== null && (typeof data !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(data))) throw invalidParams('data must be 0x hex bytes');
    const common = { ...links(), chain: chain.chain, from, to: tx.to };
    let answer: ResultAnswer<'send_coin' | 'execute_contract'>;
    if (!data || data === '0x') {
      const amount = weiToCoins(value);
      if (amount === null) {
        throw invalidParams('a transfer of coins is limited to 6 decimals', { code: 4072, err: 'send token amount decimal places exceeded' });
      }
      answer = await confirm('send_coin', await client.prepare.sendCoin({ ...common, amount }));
    } else {
      answer = await confirm('execute_contract', await client.prepare.executeContract({ ...common, value, encodedFunctionCall: data }));
    }
    return (answer as { result: { tx_hash: string } }).result.tx_hash;
  }

  async function personalSign(params: readonly unknown[]): Promise<string> {
    const [message, address] = params;
    if (typeof message !== 'string') throw invalidParams('personal_sign takes the message and the address');
    const from = requireAccount(address);
    const chain = await currentChain();
    const isHex = /^0x([0-9a-fA-F]{2})*$/.test(message);
    const request = { ...links(), chain: chain.chain, from, value: message, ...(isHex ? { isHexEncoded: true } : {}) };
    const prepared = options.personalSign === 'chain' ? await client.prepare.signMessage(request) : await client.prepare.signMessageEip191(request);
    const answer = await confirm(options.personalSign === 'chain' ? 'sign_message' : 'sign_message_eip191', prepared);
    return (answer as { result: { signature: string } }).result.signature;
  }

  async function signTypedData(params: readonly unknown[]): Promise<string> {
    const [address, typedData] = params;
    const from = requireAccount(address);
    if (typeof typedData !== 'string' && !isObject(typedData)) throw invalidParams('eth_signTypedData_v4 takes the address and the typed data');
    const chain = await currentChain();
    const answer = await confirm('sign_typedData_v4', await client.prepare.signTypedData({ ...links(), chain: chain.chain, from, value: typedData }));
    return (answer as { result: { signature: string } }).result.signature;
  }

  async function switchChain(params: readonly unknown[]): Promise<null> {
    const chainId = parseChainId(params[0]);
    const list = await loadChains();
    const target = list.find((chain) => chain.chain_id === chainId);
    if (!target) throw new ProviderRpcError(ProviderErrorCodes.unrecognizedChain, `Unrecognized chain ID ${hex(chainId)}: the wallet service has ${list.map((chain) => hex(chain.chain_id)).join(', ')}.`);
    if (target !== current) {
      current = target;
      emit('chainChanged', hex(target.chain_id));
    }
    return null;
  }

  function watchAsset(params: unknown): boolean {
    const asset = Array.isArray(params) ? params[0] : params;
    if (!isObject(asset) || typeof asset.type !== 'string' || !isObject(asset.options) || typeof asset.options.address !== 'string') {
      throw invalidParams('wallet_watchAsset takes { type, options: { address, … } }');
    }
    // The wallet app lists the cards a member holds on its own; it keeps no list of tokens to add to.
    if (asset.type === 'ERC721') return true;
    throw new ProviderRpcError(ProviderErrorCodes.unsupportedMethod, `The wallet does not keep a list of ${asset.type} assets.`);
  }

  /** A read of the chain, sent to its JSON-RPC endpoint as it is. */
  async function read(method: string, params: readonly unknown[]): Promise<unknown> {
    const chain = await currentChain();
    const url = options.rpcUrls?.[chain.chain_id] ?? chain.rpc_url;
    let response: Response;
    try {
      response = await fetcher(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
      });
    } catch (error) {
      throw new ProviderRpcError(ProviderErrorCodes.chainDisconnected, `The chain ${hex(chain.chain_id)} cannot be reached: ${(error as Error).message}`);
    }
    let body: Record<string, unknown> | undefined;
    try {
      body = (await response.json()) as Record<string, unknown>;
    } catch {
      body = undefined;
    }
    if (isObject(body?.error)) {
      const error = body.error as { code?: unknown; message?: unknown; data?: unknown };
      const code = error.code === ProviderErrorCodes.methodNotFound ? ProviderErrorCodes.unsupportedMethod : Number(error.code);
      throw new ProviderRpcError(Number.isInteger(code) ? code : ProviderErrorCodes.internal, String(error.message ?? 'request failed'), error.data);
    }
    if (body && typeof body.code === 'number' && typeof body.err === 'string') throw fromServiceError(body as unknown as A2aError);
    if (!response.ok || !body || !('result' in body)) {
      throw new ProviderRpcError(ProviderErrorCodes.chainDisconnected, `The chain ${hex(chain.chain_id)} answered HTTP ${response.status}.`);
    }
    return body.result;
  }

  async function dispatch(args: RequestArguments): Promise<unknown> {
    const { method } = args;
    switch (method) {
      case 'eth_requestAccounts':
        return requestAccounts();
      case 'eth_accounts':
        return accountsOf(client.getConnection());
      case 'eth_coinbase':
        return accountsOf(client.getConnection())[0] ?? null;
      case 'eth_chainId':
        return hex((await currentChain()).chain_id);
      case 'net_version':
        return String((await currentChain()).chain_id);
      case 'wallet_switchEthereumChain':
      case 'wallet_addEthereumChain':
        return switchChain(paramsArray(args));
      case 'wallet_revokePermissions':
        provider.disconnect();
        return null;
      case 'wallet_watchAsset':
        return watchAsset(args.params);
      case 'eth_sendTransaction':
        return sendTransaction(paramsArray(args));
      case 'personal_sign':
        return personalSign(paramsArray(args));
      case 'eth_signTypedData_v4':
        return signTypedData(paramsArray(args));
    }
    if (SIGNING_METHODS_REFUSED.has(method) || !READ_PREFIX.test(method)) throw unsupportedMethod(method);
    return read(method, paramsArray(args));
  }

  const provider: WalletServiceProvider = {
    client,
    isWalletService: true,
    async request(args) {
      if (!isObject(args) || typeof args.method !== 'string' || args.method === '') {
        throw invalidParams('request takes { method, params }');
      }
      return dispatch(args as RequestArguments);
    },
    on(event, listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(listener);
      return provider;
    },
    once(event, listener) {
      const wrapped: Listener = (...args) => {
        provider.removeListener(event, wrapped);
        listener(...args);
      };
      return provider.on(event, wrapped);
    },
    removeListener(event, listener) {
      listeners.get(event)?.delete(listener);
      return provider;
    },
    off: (event, listener) => provider.removeListener(event, listener),
    disconnect() {
      const had = accountsOf(client.getConnection()).length > 0;
      client.disconnect();
      if (had) emit('accountsChanged', []);
    },
    getChains: loadChains,
  };
  // EIP-1193: `connect` once the provider can serve requests; the chains are fetched at once for it.
  loadChains().catch(() => {});
  return provider;
}
