import type { Transport } from 'viem';
import { isNodeUnreachable } from './node-errors.ts';

/** Told of every JSON-RPC call a chain's client makes (metrics). */
export interface RpcCallRecorder {
  rpcCall(chain: string, method: string, seconds: number, failed: boolean): void;
}

/** A viem transport whose every call is reported to `observe` once it settles: its method, how long it took, and its error if it failed. */
function observedTransport(transport: Transport, observe: (method: string, milliseconds: number, error: unknown) => void): Transport {
  return (parameters) => {
    const inner = transport(parameters);
    return {
      ...inner,
      request: (async (args: { method: string; params?: unknown }, options?: unknown) => {
        const started = performance.now();
        let error: unknown;
        try {
          return await (inner.request as (args: unknown, options?: unknown) => Promise<unknown>)(args, options);
        } catch (thrown) {
          error = thrown ?? new Error('the call failed');
          throw thrown;
        } finally {
          observe(args.method, performance.now() - started, error);
        }
      }) as typeof inner.request,
    };
  };
}

/**
 * A viem transport that reports each call to `recorder`: its method, how long it took and whether it
 * failed. Calls of one batch are each reported with the batch's time.
 */
export function recordedTransport(transport: Transport, chain: string, recorder: RpcCallRecorder): Transport {
  return observedTransport(transport, (method, milliseconds, error) => recorder.rpcCall(chain, method, milliseconds / 1000, error !== undefined));
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
  return observedTransport(transport, (_method, _milliseconds, error) => {
    if (error !== undefined && isNodeUnreachable(error)) unanswered.count += 1;
  });
}
