import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TransactionReceiptNotFoundError, type PublicClient } from 'viem';
import { AppError } from '../errors/app-error.ts';
import { Errors } from '../errors/codes.ts';
import { finalReceipt } from './final-receipt.ts';

const hash = `0x${'ab'.repeat(32)}` as const;

test('a receipt a reorg took away after the outbox called it final is a 503 to come back to, not a 500', async () => {
  const client = { getTransactionReceipt: async () => Promise.reject(new TransactionReceiptNotFoundError({ hash })) } as unknown as PublicClient;
  await assert.rejects(finalReceipt({ client }, hash), (error: unknown) => {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, Errors.ServiceUnavailable);
    assert.equal(error.httpStatus, 503);
    assert.match(error.detail ?? '', /replaced on the chain; it is being sent again/);
    return true;
  });
});

test('other failures of the node are not taken for a reorg', async () => {
  const client = { getTransactionReceipt: async () => Promise.reject(new Error('socket hang up')) } as unknown as PublicClient;
  await assert.rejects(finalReceipt({ client }, hash), /socket hang up/);
});
