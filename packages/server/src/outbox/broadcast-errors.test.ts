import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyBroadcastError } from './broadcast-errors.ts';

test('node answers are sorted into sent, reconcile and retry, whatever the node wording', () => {
  const wrapped = (details: string) => Object.assign(new Error('RPC Request failed.'), { cause: { details } });
  assert.deepEqual(classifyBroadcastError(wrapped('already known')), { status: 'sent' });
  assert.deepEqual(classifyBroadcastError(new Error('Known transaction: 0xabc')), { status: 'sent' });
  assert.equal(classifyBroadcastError(wrapped('nonce too low')).status, 'reconcile');
  assert.equal(classifyBroadcastError(new Error('OldNonce: transaction nonce is too low')).status, 'reconcile');
  assert.equal(classifyBroadcastError(wrapped('insufficient funds for gas * price + value')).status, 'retry');
  assert.equal(classifyBroadcastError(new Error('fetch failed')).status, 'retry');
  assert.equal(classifyBroadcastError('weird').status, 'retry');
  // Hardhat's node (EDR), word for word.
  assert.deepEqual(classifyBroadcastError(wrapped('Known transaction: 0x946ae7c24c179b1b631aa0d8137080d1163f9d97b7024e8c1de190ed7f0fb0ff')), { status: 'sent' });
  assert.equal(classifyBroadcastError(wrapped('Transaction nonce too low. Expected nonce to be at least 1 but got 0.')).status, 'reconcile');
  assert.equal(classifyBroadcastError(wrapped("Nonce too high. Expected nonce to be 2 but got 9. Note that transactions can't be queued when automining.")).status, 'retry');
  assert.equal(classifyBroadcastError(wrapped("Sender doesn't have enough funds to send tx. The max upfront cost is: 210000000000001 and the sender's balance is: 0.")).status, 'retry');
  assert.equal(classifyBroadcastError(wrapped('Replacement transaction underpriced. A gasPrice/maxFeePerGas of at least 11000000000 is necessary to replace the existing transaction with nonce 0.')).status, 'retry');
});
