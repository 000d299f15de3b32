// The signing pool's worker thread (custody/signing-pool.ts). Plain JavaScript, so it loads the same
// way however the service was started. It signs what it is sent and keeps nothing between messages.
import { parentPort } from 'node:worker_threads';
import { signTransactionWithKey } from './transaction-signature.js';

parentPort?.on('message', async (message) => {
  const results = [];
  for (const { privateKey, transaction } of message.requests) {
    try {
      results.push({ raw: await signTransactionWithKey(privateKey, transaction) });
    } catch (error) {
      results.push({ error: error instanceof Error ? error.message : String(error) });
    }
  }
  parentPort?.postMessage({ id: message.id, results });
});
