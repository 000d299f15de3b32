import type { Hex } from 'viem';
import { AppError } from '../../errors/app-error.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import { isConfirmed } from '../../chain/confirmations.ts';
import type { TransactionOutbox } from '../../outbox/outbox.ts';
import { Errors } from '../../errors/codes.ts';

/**
 * The outbox knows the transactions the service sent (and their receipts once mined); any other
 * hash is looked up on the main chain. No receipt yet, a receipt whose block the chain's
 * `confirmations` do not count as final yet, or no such transaction: 4700.
 */
export async function receiptSuccess(deps: { chains: ChainRegistry; outbox: TransactionOutbox }, hash: Hex): Promise<boolean> {
  const known = await deps.outbox.findByHash(hash);
  if (known) {
    if (known.status !== 'mined' || known.receiptStatus === null) throw new AppError(Errors.NoReceipt);
    return known.receiptStatus === 'success';
  }
  const main = deps.chains.get('main');
  const receipt = await main.client
    .getTransactionReceipt({ hash })
    .catch((error: Error) => {
      if (error.name === 'TransactionReceiptNotFoundError') return undefined;
      throw error;
    });
  if (!receipt || !(await isConfirmed(main, receipt))) throw new AppError(Errors.NoReceipt);
  return receipt.status === 'success';
}
