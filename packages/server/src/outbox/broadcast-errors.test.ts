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
});
