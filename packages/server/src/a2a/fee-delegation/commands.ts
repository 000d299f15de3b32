import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { parseEther, type Address, type Hex } from 'viem';
import type { ChainContext } from '../../chain/chains.ts';
import { AppError } from '../../errors/app-error.ts';
import { OutboxRefusal, type TransactionSigner } from '../../outbox/outbox.ts';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/database.ts';
import type { KeyVault } from '../../custody/key-vault.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { TransactionOutbox } from '../../outbox/outbox.ts';
import type { Operator } from '../../operator/operator.ts';
import type { Logger } from 'pino';
import { epochSeconds } from '../../store/database.ts';
import { isTransactionType, type RequestType } from '../requests/actions.ts';
import { Errors } from '../../errors/codes.ts';
import {
  deleteFeeCredential,
  findFeeCredentialByHash,
  findFeeState,
  findOutboxTransaction,
  getFeeCredential,
  insertFeeCredential,
  listUnsettledFees,
  markFeeCredentialRevoked,
  markFeeSettled,
  recordFeeAdvance,
} from './store.ts';

/**
 * Fee delegation on a plain EVM chain. The member's own account sends the transaction (it must be
 * the sender of a token or card transfer), and the fee payer bound to the credential makes the
 * member whole:
 *
 * 1. advance (only when the member cannot front the fee): right before the transaction, the fee
 *    payer sends the member what is missing for value + gas limit × max fee;
 * 2. settle: once the transaction is mined, the fee payer sends the member the fee it actually
 *    cost (gas used × effective gas price) minus the advance.
 *
 * When the member could front the fee, the member's balance ends exactly `value` lower. When an
 * advance was needed and exceeded the real fee, the difference stays with the member: the member
 * never pays a fee, and the fee payer pays at most the advance. Both legs go through the outbox with
 * idempotency keys derived from the request key, so a crash never pays twice.
 */

export interface CreatedFeeCredential {
  id: string;
  chain: string;
  credential: string;
  fee_payer_address: Address;
  /** Coins the operator sent the fee payer (embedded chains), or 0 when it must be funded by hand. */
  funded_coins: number;
  funding_tx_hash: Hex | null;
}

/** Creates a fee payer (server-protected key) and a credential bound to it; funds it on embedded chains. */
export async function createFeeCredential(deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox; operator: Operator }, input: { chain?: string; fundCoins?: number } = {}): Promise<CreatedFeeCredential> {
  const chain = deps.chains.get(input.chain ?? 'main');
  const id = randomUUID();
  const credential = `fd_${randomBytes(32).toString('base64url')}`;
  const key = await deps.store.db.transaction().execute(async (trx) => {
    const created = await deps.vault.createKey({ ownerType: 'fee_payer', ownerId: id, protection: 'server', secretKind: 'private_key' }, trx);
    await insertFeeCredential(trx, {
      id,
      chain: chain.name,
      lookup_hash: lookupHash(credential),
      key_id: created.keyId,
      payer_address: created.address,
      created_at: epochSeconds(),
      revoked_at: null,
    });
    return created;
  });
  const coins = input.fundCoins ?? deps.config.a2a.feePayerFundingCoins;
  let fundingTxHash: Hex | null = null;
  if (chain.managed && coins > 0) {
    let funding;
    try {
      funding = await deps.outbox.submit({
        idempotencyKey: `fund-fee-payer:${id}`,
        chain: chain.name,
        signer: await deps.operator.signer(),
        to: key.address,
        value: parseEther(String(coins)),
      });
    } catch (error) {
      // Nothing was sent: the credential and its key go, so a failed create leaves nothing behind.
      await removeFeeCredential(deps, id, key.keyId);
      throw error;
    }
    const mined = await deps.outbox.waitForFinal(funding.id).catch(async (error: Error) => {
      // The funding may still land: the key stays so its coins can be recovered, the credential is revoked.
      await revokeFeeCredential(deps, id);
      throw new Error(`fee credential ${id} revoked: its funding did not confirm (${error.message})`, { cause: error });
    });
    if (mined.status !== 'mined' || mined.receiptStatus !== 'success') {
      await removeFeeCredential(deps, id, key.keyId);
      throw new Error(`funding the fee payer failed (${mined.receiptStatus ?? mined.status}): no credential was created`);
    }
    fundingTxHash = mined.txHash;
  }
  return {
    id,
    chain: chain.name,
    credential,
    fee_payer_address: key.address,
    funded_coins: fundingTxHash ? coins : 0,
    funding_tx_hash: fundingTxHash,
  };
}

async function removeFeeCredential(deps: { store: Store }, id: string, keyId: string): Promise<void> {
  await deleteFeeCredential(deps.store.db, id, keyId);
}

export async function revokeFeeCredential(deps: { store: Store }, id: string): Promise<boolean> {
  return markFeeCredentialRevoked(deps.store.db, id, epochSeconds());
}

/**
 * The credential id for a prepare: 6416 when fee delegation cannot apply (not a transaction type,
 * or a credential of another chain), 6418 when the credential is unknown or revoked.
 */
export async function resolveFeeCredential(deps: { store: Store }, credential: unknown, type: RequestType, chain: string): Promise<string> {
  if (!isTransactionType(type)) throw new AppError(Errors.FeeCredentialNotForRequest, { detail: `${type} sends no transaction` });
  if (typeof credential !== 'string' || credential === '') throw new AppError(Errors.InvalidFeeCredential, { detail: 'kas_authorization_key must be a string' });
  const row = await findFeeCredentialByHash(deps.store.db, lookupHash(credential));
  if (!row || row.revoked_at !== null) throw new AppError(Errors.InvalidFeeCredential);
  if (row.chain !== chain) throw new AppError(Errors.FeeCredentialNotForRequest, { detail: `the credential is for chain ${row.chain}` });
  return row.id;
}

async function feePayerOf(deps: { store: Store; vault: KeyVault }, credentialId: string): Promise<TransactionSigner & { chain: string; revoked: boolean }> {
  const row = await getFeeCredential(deps.store.db, credentialId);
  const unlocked = await deps.vault.unlock(row.key_id);
  return { address: unlocked.address, account: unlocked.account, chain: row.chain, revoked: row.revoked_at !== null };
}

/**
 * Step 1: makes sure the member can pass the outbox's check for `value + gas × max fee`, the fee
 * payer advancing what is missing (and waiting until it is mined). 6418 when the credential was
 * revoked since prepare; 6412 when the fee payer cannot pay.
 */
export async function advanceFee(
  deps: { store: Store; vault: KeyVault; outbox: TransactionOutbox },
  input: { requestKey: string; credentialId: string; chain: ChainContext; member: Address; value: bigint; gas: bigint },
): Promise<bigint> {
  const payer = await feePayerOf(deps, input.credentialId);
  if (payer.revoked) throw new AppError(Errors.InvalidFeeCredential, { detail: 'the credential was revoked' });
  const fees = await input.chain.client.estimateFeesPerGas();
  // The outbox signs with twice its fee estimate; three times ours leaves room for the base fee moving in between.
  const maxCost = input.value + input.gas * fees.maxFeePerGas * 3n;
  const balance = await input.chain.client.getBalance({ address: input.member, blockTag: 'pending' });
  if (balance < input.value) throw new AppError(Errors.InsufficientFunds, { detail: 'the member cannot pay the value' });
  const missing = maxCost > balance ? maxCost - balance : 0n;
  if (missing === 0n) return 0n;
  await recordFeeAdvance(deps.store.db, input.requestKey, missing.toString());
  try {
    const advance = await deps.outbox.submit({
      idempotencyKey: `a2a-fee-advance:${input.requestKey}`,
      chain: input.chain.name,
      signer: payer,
      to: input.member,
      value: missing,
    });
    const mined = await deps.outbox.waitForFinal(advance.id);
    if (mined.status !== 'mined' || mined.receiptStatus !== 'success') throw new AppError(Errors.InsufficientFunds, { detail: 'the fee payer advance failed' });
  } catch (error) {
    if (error instanceof OutboxRefusal) throw new AppError(Errors.InsufficientFunds, { detail: `the fee payer cannot pay: ${error.message}` });
    throw error;
  }
  return missing;
}

/**
 * Step 2 for one request: once its transaction is final, the fee payer sends the member the fee it
 * cost minus the advance. Returns true when the request needs nothing more.
 */
export async function settleFee(deps: { store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox; log: Logger }, requestKey: string): Promise<boolean> {
  const db = deps.store.db;
  const request = await findFeeState(db, requestKey);
  if (!request?.fee_credential_id || request.fee_settled_at !== null) return true;
  const sent = await findOutboxTransaction(db, requestKey);
  if (!sent) return false;
  if (sent.status !== 'mined' && sent.status !== 'failed') return false;

  let fee = 0n;
  if (sent.status === 'mined') {
    const chain = deps.chains.get(sent.chain);
    const receipt = await chain.client.getTransactionReceipt({ hash: sent.tx_hash as Hex });
    fee = receipt.gasUsed * receipt.effectiveGasPrice;
  }
  const advance = await findOutboxTransaction(db, `a2a-fee-advance:${requestKey}`);
  const advanced = advance?.status === 'mined' && advance.receipt_status === 'success' ? BigInt(advance.value_wei) : 0n;
  const owed = fee - advanced;
  if (owed > 0n) {
    const payer = await feePayerOf(deps, request.fee_credential_id);
    try {
      await deps.outbox.submit({
        idempotencyKey: `a2a-fee-settle:${requestKey}`,
        chain: sent.chain,
        signer: payer,
        to: sent.from_address as Address,
        value: owed,
      });
    } catch (error) {
      if (error instanceof OutboxRefusal) {
        deps.log.warn(`fee settlement of ${requestKey}: ${error.message}`);
        return false;
      }
      throw error;
    }
  }
  await markFeeSettled(db, requestKey, epochSeconds());
  return true;
}

/** Requests settled per sweep at most; the next sweep takes the rest. */
const SETTLEMENT_BATCH = 100;

/** Settles every fee-delegated request whose transaction became final; the service runs it periodically. */
export async function settlePendingFees(deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox; log: Logger }): Promise<number> {
  const since = epochSeconds() - deps.config.a2a.resultRetentionSeconds;
  const pending = await listUnsettledFees(deps.store.db, since, SETTLEMENT_BATCH);
  let settled = 0;
  for (const requestKey of pending) {
    try {
      if (await settleFee(deps, requestKey)) settled += 1;
    } catch (error) {
      deps.log.warn(`fee settlement of ${requestKey}: ${(error as Error).message}`);
    }
  }
  return settled;
}

function lookupHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
