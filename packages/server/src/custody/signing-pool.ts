import { Worker } from 'node:worker_threads';
import type { Hex, TransactionSerializable } from 'viem';
import { signTransactionWithKey } from './transaction-signature.js';

interface SignRequest {
  privateKey: Hex;
  transaction: TransactionSerializable;
  resolve(raw: Hex): void;
  reject(error: Error): void;
}

type SignResult = { raw: Hex } | { error: string };

/**
 * Signs transactions on a worker thread, so the event loop keeps serving requests and the store
 * while a busy outbox signs (a secp256k1 signature costs a fraction of a millisecond of JS). Requests
 * made in the same turn of the event loop go to the worker in one message. If the worker cannot
 * start or dies, signing goes on in this thread: slower, never lost.
 */
export class SigningPool {
  #worker: Worker | undefined;
  #broken = false;
  #closed = false;
  #queue: SignRequest[] = [];
  #flushScheduled = false;
  #nextBatchId = 1;
  readonly #inFlight = new Map<number, SignRequest[]>();
  readonly #onWorkerProblem: (message: string) => void;

  constructor(options: { onWorkerProblem?: (message: string) => void } = {}) {
    this.#onWorkerProblem = options.onWorkerProblem ?? (() => {});
  }

  /** The signed, serialized transaction, as viem's `signTransaction` gives it (see transaction-signature.js). */
  signTransaction(privateKey: Hex, transaction: TransactionSerializable): Promise<Hex> {
    if (this.#broken || this.#closed) return signTransactionWithKey(privateKey, transaction);
    return new Promise<Hex>((resolve, reject) => {
      this.#queue.push({ privateKey, transaction, resolve, reject });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Stops the worker; what it was signing is finished in this thread. */
  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) await worker.terminate();
    this.#signHere(this.#takeAll());
  }

  #flush(): void {
    this.#flushScheduled = false;
    const requests = this.#queue;
    this.#queue = [];
    if (requests.length === 0) return;
    const worker = this.#broken || this.#closed ? undefined : this.#startedWorker();
    if (!worker) return this.#signHere(requests);
    const id = this.#nextBatchId++;
    try {
      worker.postMessage({ id, requests: requests.map(({ privateKey, transaction }) => ({ privateKey, transaction: plainFields(transaction) })) });
    } catch {
      // Something in a transaction cannot be copied to the worker: sign this batch here.
      return this.#signHere(requests);
    }
    this.#inFlight.set(id, requests);
    worker.ref();
  }

  #startedWorker(): Worker | undefined {
    if (this.#worker) return this.#worker;
    try {
      const worker = new Worker(new URL('./signing-thread.js', import.meta.url));
      worker.on('message', (message: { id: number; results: SignResult[] }) => this.#settle(message.id, message.results));
      worker.on('error', (error) => this.#fail(`signing worker failed: ${error.message}`));
      worker.on('exit', (code) => {
        if (!this.#closed) this.#fail(`signing worker exited with code ${code}`);
      });
      worker.unref();
      this.#worker = worker;
      return worker;
    } catch (error) {
      this.#fail(`signing worker did not start: ${(error as Error).message}`);
      return undefined;
    }
  }

  #settle(id: number, results: SignResult[]): void {
    const requests = this.#inFlight.get(id);
    this.#inFlight.delete(id);
    // Idle, the worker must not keep the process alive.
    if (this.#inFlight.size === 0) this.#worker?.unref();
    requests?.forEach((request, index) => {
      const result = results[index];
      if (result && 'raw' in result) request.resolve(result.raw);
      else request.reject(new Error(result?.error ?? 'signing worker gave no result'));
    });
  }

  /** The worker is gone: sign here from now on, including what it had not answered. */
  #fail(message: string): void {
    if (this.#broken) return;
    this.#broken = true;
    this.#worker = undefined;
    this.#onWorkerProblem(`${message}; signing in the main thread from now on`);
    this.#signHere(this.#takeAll());
  }

  #takeAll(): SignRequest[] {
    const requests = [...this.#inFlight.values()].flat().concat(this.#queue);
    this.#inFlight.clear();
    this.#queue = [];
    return requests;
  }

  #signHere(requests: SignRequest[]): void {
    for (const request of requests) {
      signTransactionWithKey(request.privateKey, request.transaction).then(request.resolve, request.reject);
    }
  }
}

/**
 * The transaction without what a wallet client adds around it (its account, the chain with its
 * formatters, `from`): only data crosses to the worker, and the serializer reads nothing else.
 */
function plainFields(transaction: TransactionSerializable): TransactionSerializable {
  const plain: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(transaction)) {
    if (typeof value === 'function' || key === 'account' || key === 'chain' || key === 'from') continue;
    plain[key] = value;
  }
  return plain as TransactionSerializable;
}
