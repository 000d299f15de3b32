import { toHex, type Address } from 'viem';
import type { ChainContext } from '../chains.ts';

/**
 * Sends an account's next transaction (nonce `nonce`) so that anvil keeps it in its queue, as it
 * does under load when the account's transactions arrive out of nonce order: told that the nonce
 * before is unused, the node queues the transaction behind it; told again that it is used, it
 * neither mines it nor takes it again ("already imported"), and a mined block skips it. Resolves
 * with what `send` answered once the node holds the transaction so.
 */
export async function sendIntoQueue<T>(chain: ChainContext, address: Address, nonce: number, send: () => Promise<T>): Promise<T> {
  const rpc = (method: string, params: unknown[] = []) => chain.client.request({ method: method as never, params: params as never });
  await rpc('anvil_setNonce', [address, toHex(nonce - 1)]);
  const sent = await send();
  for (let tries = 0; BigInt(((await rpc('txpool_status')) as { queued: string }).queued) === 0n; tries++) {
    if (tries >= 200) throw new Error('the node never queued the transaction');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await rpc('anvil_setNonce', [address, toHex(nonce)]);
  return sent;
}
