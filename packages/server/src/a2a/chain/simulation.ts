import type { Address } from 'viem';
import type { ChainContext } from '../../chain/chains.ts';
import { AppError } from '../../errors/app-error.ts';
import type { PreparedCall } from '../requests/actions.ts';
import { isInsufficientFunds, revertReasonOf } from './revert-reason.ts';
import { Errors } from '../../errors/codes.ts';

import { gasLimitOf, plainTransferEstimate } from '../../outbox/fees.ts';

/** The outbox's gas limit for an estimate: estimated_gas is the gas limit that would be used. */
export { gasLimitOf };

/**
 * Runs the call from `from` against the latest state (eth_estimateGas, which executes it). A
 * revert answers 6414 with the revert reason as detail; a balance that cannot pay value (and, unless
 * the fee is delegated, the estimated fee) answers 6412. Returns the gas estimate.
 */
export async function simulateCall(
  chain: ChainContext,
  call: PreparedCall,
  from: Address,
  options: { feeDelegated: boolean; abi?: readonly unknown[] },
): Promise<bigint> {
  const value = BigInt(call.value);
  let estimate: bigint;
  try {
    estimate = await chain.client.estimateGas({ account: from, to: call.to, data: call.data, value });
  } catch (error) {
    if (isInsufficientFunds(error)) throw new AppError(Errors.InsufficientFunds, { detail: `${from} cannot pay the value of this transaction` });
    const reason = revertReasonOf(error, options.abi);
    if (reason !== undefined) throw new AppError(Errors.TransactionReverted, { detail: reason, cause: error });
    throw error;
  }
  estimate = await plainTransferEstimate(chain, call.to, call.data, estimate);
  const balance = await chain.client.getBalance({ address: from });
  if (balance < value) throw new AppError(Errors.InsufficientFunds, { detail: `${from} holds ${balance} wei; the value is ${value} wei` });
  if (!options.feeDelegated) {
    const fees = await chain.client.estimateFeesPerGas();
    const cost = value + gasLimitOf(estimate) * fees.maxFeePerGas;
    if (balance < cost) throw new AppError(Errors.InsufficientFunds, { detail: `${from} holds ${balance} wei; value and fee may cost ${cost} wei` });
  }
  return estimate;
}
