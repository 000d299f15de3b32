import type { ChainContext } from '../chains.ts';

/**
 * Switches the embedded node's automine, and tells the service: with it off the node stands for a
 * chain with a block time, which the outbox must wait for rather than mine a block on its own.
 */
export async function setAutomine(chain: ChainContext, on: boolean): Promise<void> {
  await chain.client.request({ method: 'evm_setAutomine' as never, params: [on] as never });
  chain.automine = on;
}
