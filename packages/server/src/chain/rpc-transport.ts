import type { Transport } from 'viem';
import { isNodeUnreachable } from './node-errors.ts';

/** Told of every JSON-RPC call a chain's client makes (metrics). */
export interface RpcCallRecorder {
  rpcCall(chain: string, method: string, seconds: number, failed: boolean): void;
}

/**
 * A viem transport that reports each call to `recorder`: its method, how long it took and whether it
 * failed. Calls of one batch are each reported with the batch's time.
 */
export function recordedTransport(transport: Transport, chain: string, recorder: RpcCallRecorder): Transport {
  return (parameters) => {
    const inner = transport(parameters);
    return {
      ...inner,
      request: (async (args: { method: string; params?: unknown }, options?: unknown) => {
        const started = performance.now();
        let failed = true;
        try {
          const result = await (inner.request as (args: unknown, options?: unknown) => Promise<unknown>)(args, options);
          failed = false;
          return result;
        } finally {
          recorder.rpcCall(chain, args.method, (performance.now() - started) / 1000, failed);
        }
      }) as typeof inner.request,
    };
  };
}

/** How many calls a chain's node has left unanswered (refused, reset, timed out) in this process. */
export interface UnansweredCalls {
  count: number;
}

/**
 * A viem transport that counts the calls its node left unanswered: a rise means the node was down
 * and may have come back without its newest blocks (see ChainRewindWatch).
 */
export function countUnanswered(transport: Transport, unanswered: UnansweredCalls): Transport {
  return (parameters) => {
    const inner = transport(parameters);
    return {
      ...inner,
      request: (async (args: unknown, options?: unknown) => {
        try {
          return await (inner.request as (args: unknown, options?: unknown) => Promise<unknown>)(args, options);
        } catch (error) {
          if (isNodeUnreachable(error)) unanswered.count += 1;
          throw error;
        }
      }) as typeof inner.request,
    };
  };
}
