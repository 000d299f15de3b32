import { TransactionReceiptNotFoundError, type Hex, type TransactionReceipt } from 'viem';
import { AppError } from '../errors/app-error.ts';
import { Errors } from '../errors/codes.ts';
import type { ChainContext } from './chains.ts';

/**
 * The receipt of a transaction the outbox reported final. A reorg can take its block away between
 * that report and this read (on a chain whose rule trusts the head): the outbox then sends it again,
 * so the caller is told to come back (503, as for a transaction not mined in time), not given a 500.
 */
export async function finalReceipt(chain: Pick<ChainContext, 'client'>, hash: Hex): Promise<TransactionReceipt> {
  try {
    return await chain.client.getTransactionReceipt({ hash });
  } catch (error) {
    if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
    throw new AppError(Errors.ServiceUnavailable, {
      detail: `the block of transaction ${hash} was replaced on the chain; it is being sent again and A20 tells when it is final`,
      cause: error,
    });
  }
}
