import { createTransport, RpcRequestError, type EIP1193RequestFn, type Transport } from 'viem';
import { rpcHttpClient } from './rpc-http-client.ts';

/** Most calls in one JSON-RPC batch (viem's default). */
const BATCH_SIZE = 1000;

interface Answer {
  id?: number | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

interface Queued {
  body: { id: number; method: string; params?: unknown };
  resolve(answer: Answer): void;
  reject(error: unknown): void;
}

/**
 * viem's HTTP JSON-RPC transport with its calls batched per turn of the event loop: the calls made
 * in one turn go together as one JSON-RPC batch once the turn ends (setImmediate), a call made alone
 * as a plain request. viem's own batching holds every call, alone or not, for a timer
 * (`setTimeout(0)`, a millisecond or more in Node.js): two such waits were a sixth of an A7 call.
 * Each request goes over rpcHttpClient (connections kept open); retries are viem's (createTransport).
 */
export function batchedHttp(url: string, options: { retryCount: number; timeout: number }): Transport {
  return () => {
    const rpc = rpcHttpClient(url, { timeout: options.timeout });
    let queue: Queued[] = [];
    let nextId = 1;

    const send = (calls: Queued[]): void => {
      if (calls.length === 1) {
        const [only] = calls as [Queued];
        rpc.request({ body: only.body }).then((answer) => only.resolve(answer as Answer), only.reject);
        return;
      }
      rpc.request({ body: calls.map((call) => call.body) }).then(
        (answers) => {
          const list = answers as Answer[];
          const byId = new Map(list.map((answer) => [answer.id, answer]));
          for (const [index, call] of calls.entries()) {
            // A node that refuses a whole batch answers one error for all, without ids.
            const answer = byId.get(call.body.id) ?? (list[index] && list[index]!.id == null ? list[index] : undefined);
            if (answer) call.resolve(answer);
            else call.reject(new RpcRequestError({ body: call.body, error: { code: -32603, message: 'no answer to this call in the batch' }, url }));
          }
        },
        (error: unknown) => {
          for (const call of calls) call.reject(error);
        },
      );
    };

    const flush = (): void => {
      const calls = queue;
      queue = [];
      for (let start = 0; start < calls.length; start += BATCH_SIZE) send(calls.slice(start, start + BATCH_SIZE));
    };

    return createTransport(
      {
        key: 'http',
        name: 'HTTP JSON-RPC',
        type: 'http',
        retryCount: options.retryCount,
        timeout: options.timeout,
        request: (async ({ method, params }: { method: string; params?: unknown }) => {
          const body = { id: nextId++, method, params };
          const answer = await new Promise<Answer>((resolve, reject) => {
            if (queue.length === 0) setImmediate(flush);
            queue.push({ body, resolve, reject });
          });
          if (answer.error) throw new RpcRequestError({ body, error: answer.error, url });
          return answer.result;
        }) as EIP1193RequestFn,
      },
      { url },
    );
  };
}
