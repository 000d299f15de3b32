import type { ChainContext, ChainRegistry } from '../../chain/chains.ts';
import type { Config } from '../../config/config.ts';

/**
 * The reads a dapp's provider needs (balances, calls, gas estimates, receipts, blocks, logs): the
 * only methods the public endpoint passes on. Nothing that signs, sends, changes the node (anvil_*,
 * evm_*), or keeps state on it (filters).
 */
export const READ_METHODS = new Set([
  'eth_blockNumber',
  'eth_call',
  'eth_chainId',
  'eth_estimateGas',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getCode',
  'eth_getLogs',
  'eth_getStorageAt',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_maxPriorityFeePerGas',
  'eth_syncing',
  'net_listening',
  'net_version',
  'web3_clientVersion',
]);

const NODE_TIMEOUT_MS = 15_000;

export interface RpcCall {
  id?: string | number | null;
  method: string;
  params?: unknown;
}

export interface RpcAnswer {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** Every configured EVM chain with the address of its read-only endpoint on this service. */
export function listChains(deps: { config: Readonly<Config>; chains: ChainRegistry }) {
  const publicUrl = deps.config.publicUrl.replace(/\/+$/, '');
  return { chains: deps.chains.all().map((chain) => ({ chain: chain.name, chain_id: chain.chainId, rpc_url: `${publicUrl}/v2/a2a/rpc/${chain.name}` })) };
}

/**
 * One call to the chain's node when it is a read (-32601 otherwise, without asking the node). The
 * node's URL, which for an external chain may carry a provider's key, is never shown: a node that
 * cannot be reached answers -32603 with no detail.
 */
export async function readFromChain(chain: ChainContext, call: RpcCall): Promise<RpcAnswer> {
  const id = call.id ?? null;
  if (!READ_METHODS.has(call.method)) return { jsonrpc: '2.0', id, error: { code: -32601, message: `the method ${call.method} is not available here: only reads of the chain are` } };
  try {
    const response = await fetch(chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: call.method, params: call.params ?? [] }),
      signal: AbortSignal.timeout(NODE_TIMEOUT_MS),
    });
    const body = (await response.json()) as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
    if (body.error && typeof body.error === 'object') {
      const code = Number.isInteger(body.error.code) ? (body.error.code as number) : -32603;
      return { jsonrpc: '2.0', id, error: { code, message: String(body.error.message ?? 'request failed'), ...(body.error.data !== undefined ? { data: body.error.data } : {}) } };
    }
    if (!('result' in body)) throw new Error('no result');
    return { jsonrpc: '2.0', id, result: body.result };
  } catch {
    return { jsonrpc: '2.0', id, error: { code: -32603, message: `the ${chain.name} chain's node did not answer` } };
  }
}
