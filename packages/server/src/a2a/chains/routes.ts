import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { described } from '../../http/schema.ts';
import { listChains, readFromChain } from './commands.ts';
import { ChainsResponse, RpcBody, RpcParams, RpcResponse } from './schema.ts';

/**
 * GET /v2/a2a/chains and POST /v2/a2a/rpc/:chain: what a dapp's EIP-1193 provider needs beside
 * App2App: the EVM chains (ids for wallet_switchEthereumChain) and a read-only JSON-RPC endpoint
 * of each (eth_call, eth_getBalance, receipts), as the service publishes no node of its own.
 */
export const a2aChainRoutes: FastifyPluginAsync = async (plugin) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/chains', { schema: { summary: 'The EVM chains and their read-only JSON-RPC endpoints', response: { 200: described(ChainsResponse, 'Every configured EVM chain, main first') } } }, async () =>
    listChains(app.services),
  );

  app.post('/rpc/:chain', { schema: { summary: "Read-only JSON-RPC of a chain (eth_call, eth_getBalance, receipts, …)", params: RpcParams, body: RpcBody, response: { 200: described(RpcResponse, "The node's answers, in the order of the calls") } } }, async (request) => {
    const chain = app.services.chains.get(request.params.chain);
    const body = request.body;
    return Array.isArray(body) ? Promise.all(body.map((call) => readFromChain(chain, call))) : readFromChain(chain, body);
  });
};
