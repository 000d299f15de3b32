import { randomUUID } from 'node:crypto';
import { isAddress, parseEther, type Address } from 'viem';
import type { TransactionOutbox } from '../outbox/outbox.ts';
import type { Operator } from './operator.ts';
import { AppError } from '../errors/app-error.ts';
import type { OutboxTransaction } from '../outbox/outbox.ts';
import { Errors } from '../errors/codes.ts';

/** Sends coins from the operator account through the outbox and waits for the receipt. */
export async function faucet(
  deps: { outbox: TransactionOutbox; operator: Operator },
  input: { to: string; amount: string; chain?: string; idempotencyKey?: string },
): Promise<OutboxTransaction> {
  // Strict: a mixed-case address must match its checksum, or it may be a mistyped one.
  if (!isAddress(input.to)) throw new AppError(Errors.InvalidTo, { detail: `${input.to} is not an address, or its mixed-case checksum is wrong` });
  if (!/^\d+(\.\d{1,18})?$/.test(input.amount) || /^0+(\.0+)?$/.test(input.amount)) {
    throw new AppError(Errors.InvalidAmount, { detail: 'amount must be a positive decimal number of coins' });
  }
  const submitted = await deps.outbox.submit({
    idempotencyKey: input.idempotencyKey ?? `faucet:${randomUUID()}`,
    chain: input.chain ?? 'main',
    signer: await deps.operator.signer(),
    to: input.to as Address,
    value: parseEther(input.amount),
  });
  return deps.outbox.waitForFinal(submitted.id);
}
