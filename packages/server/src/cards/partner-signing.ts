import { createHash, randomUUID } from 'node:crypto';
import type { Address, Hex } from 'viem';
import { AppError } from '../errors/app-error.ts';
import { OutboxRefusal, type OutboxSubmission, type OutboxTransaction, type TransactionSigner } from '../outbox/outbox.ts';
import type { Store } from '../store/database.ts';
import type { KeyVault } from '../custody/key-vault.ts';
import type { Config } from '../config/config.ts';
import type { TransactionOutbox } from '../outbox/outbox.ts';
import type { PartnerRow } from '../store/schema.ts';
import { Errors } from '../errors/codes.ts';
import { findNftContract, findPartnerNftContract } from './store.ts';
import { cardEscrowAbi, cardNftAbi } from '@wallet-service/contracts';
import { revertReasonOf } from '../a2a/chain/revert-reason.ts';

/** A partner's own card contract: its nft_id, chain and lower-case address. */
export interface PartnerCardContract {
  nftId: number;
  chain: string;
  address: Address;
  name: string;
  /** The partner whose contract it is (who hears of its cards by webhook). */
  partnerId: string;
}

/**
 * Partners' deployed card contracts, per store. A row of nft_contracts never changes once its
 * address is set, so each process reads a partner's contract once: a round trip less on the path
 * of every partner-signed call (0.5 to 0.9 ms of A7's on PostgreSQL). A contract not found is not
 * remembered: it is read again until it is deployed.
 */
const deployedContracts = new WeakMap<Store['db'], Map<string, PartnerCardContract>>();
const REMEMBERED_CONTRACTS = 10_000;

/** The card contract deployed for the partner at approval; 4005 while it has none. */
export async function partnerCardContract(deps: { store: Pick<Store, 'db'> }, partner: Pick<PartnerRow, 'id' | 'contract_address'>): Promise<PartnerCardContract> {
  if (!partner.contract_address) throw new AppError(Errors.NoContractAddress);
  const address = partner.contract_address.toLowerCase();
  let remembered = deployedContracts.get(deps.store.db);
  if (!remembered) deployedContracts.set(deps.store.db, (remembered = new Map()));
  const key = `${partner.id}:${address}`;
  const known = remembered.get(key);
  if (known) return known;
  const row = await findPartnerNftContract(deps.store.db, partner.id, address);
  if (!row?.address) throw new AppError(Errors.NoContractAddress);
  const contract = { nftId: Number(row.id), chain: row.chain, address: row.address as Address, name: row.name, partnerId: row.partner_id };
  if (remembered.size >= REMEMBERED_CONTRACTS) remembered.delete(remembered.keys().next().value!);
  remembered.set(key, contract);
  return contract;
}

/** A card contract by its nft_id (any partner's); 404 when there is none. */
export async function cardContractById(deps: { store: Store }, nftId: number): Promise<PartnerCardContract> {
  const row = Number.isSafeInteger(nftId) ? await findNftContract(deps.store.db, nftId) : undefined;
  if (!row?.address) throw new AppError(Errors.NotFound, { detail: `no card contract with nft_id ${nftId}` });
  return { nftId: Number(row.id), chain: row.chain, address: row.address as Address, name: row.name, partnerId: row.partner_id };
}

/** The `contract_address` of a request must be the partner's own contract (400 otherwise). */
export async function assertOwnContract(deps: { store: Store }, partner: PartnerRow, contractAddress: string): Promise<PartnerCardContract> {
  const contract = await partnerCardContract(deps, partner);
  if (contractAddress.toLowerCase() !== contract.address) {
    throw new AppError(Errors.BadRequest, { detail: 'contract_address is not the card contract of this partner' });
  }
  return contract;
}

/** Unlocks the partner's signing key with its PIN (SHA-256 hex, either case): 4006 wrong, 403 locked. */
export async function unlockPartnerKey(deps: { vault: KeyVault }, partner: Pick<PartnerRow, 'key_id'>, pin: string): Promise<TransactionSigner> {
  const key = await deps.vault.unlock(partner.key_id, pin.toLowerCase());
  return { address: key.address, account: key.account };
}

/**
 * The answer for a transaction the outbox refused to store: 4202 when the partner cannot pay the
 * fee, 400 naming the revert when it would revert; anything else is rethrown as it is.
 */
export function transactionRefusalError(error: unknown): unknown {
  if (!(error instanceof OutboxRefusal)) return error;
  return error.reason === 'insufficient_funds'
    ? new AppError(Errors.InsufficientFeeFunds, { cause: error })
    : new AppError(Errors.BadRequest, { detail: `the transaction would revert: ${revertMessage(error)}`, cause: error });
}

/** The errors the card and escrow contracts revert with, to name a revert by. */
const cardContractErrors = [...cardNftAbi, ...cardEscrowAbi].filter((item) => item.type === 'error');

/**
 * The revert decoded against the card and escrow contracts (`ERC721IncorrectOwner(…)`), never the
 * node's raw revert data: that is binary (NUL characters) and means nothing to a caller.
 */
export function revertMessage(refusal: OutboxRefusal): string {
  const reason = revertReasonOf(refusal.cause, cardContractErrors) ?? 'execution reverted';
  return /^[\x20-\x7e]*$/.test(reason) ? reason : (/^custom error 0x[0-9a-f]{8}/i.exec(reason)?.[0] ?? 'execution reverted');
}

/**
 * Waits for a card transaction to be mined, at most `cards.confirmTimeoutMs`. When the chain is
 * slower than that the call answers 503 instead of hanging: the transaction stays in the outbox,
 * which keeps sending it, and A20 tells when it is mined (a mint is finished and counted by the
 * recovery pass).
 */
export async function waitUntilMined<T>(deps: { config: Readonly<Config> }, wait: (timeoutMs: number) => Promise<T>): Promise<T> {
  const timeoutMs = deps.config.cards.confirmTimeoutMs;
  try {
    return await wait(timeoutMs);
  } catch (error) {
    if (error instanceof Error && /not mined within/.test(error.message)) {
      throw new AppError(Errors.ServiceUnavailable, { detail: `the transaction was sent but not mined within ${timeoutMs} ms; A20 tells when it is`, cause: error });
    }
    throw error;
  }
}

/** The Idempotency-Key a partner call runs under (partner-api/idempotency/commands.ts, HeldKey). */
export interface CallKey {
  partnerId: string;
  key: string;
  /** When the key was first claimed: the same for a retry, another value once the key was forgotten and used again. */
  createdAtMs: number;
  /** An earlier call with this key stopped (its process ended) before it answered. */
  resumed: boolean;
}

/**
 * The outbox key of one partner operation of `kind`. Under an Idempotency-Key it is derived from
 * the key, so the first call's transaction is stored under a key a retry can name: a retry after
 * that call's process stopped finds it (submittedOperation) instead of reading the chain afresh.
 */
export function operationKey(kind: string, callKey: CallKey | null | undefined): string {
  if (!callKey) return `${kind}:${randomUUID()}`;
  const digest = createHash('sha256').update(`${callKey.partnerId}\0${callKey.key}\0${callKey.createdAtMs}`).digest('hex');
  return `${kind}:key:${digest.slice(0, 40)}`;
}

/**
 * For a call resuming an Idempotency-Key whose first call stopped: the transaction that call
 * submitted under `outboxKey`, once mined (waitUntilMined), so the retry answers what the first call
 * would have. Undefined when the call is not resumed or nothing was submitted (the call runs).
 */
export async function submittedOperation(deps: { config: Readonly<Config>; outbox: TransactionOutbox }, callKey: CallKey | null | undefined, outboxKey: string): Promise<OutboxTransaction | undefined> {
  if (!callKey?.resumed) return undefined;
  const submitted = await deps.outbox.findByIdempotencyKey(outboxKey);
  if (!submitted) return undefined;
  return waitUntilMined(deps, (timeoutMs) => deps.outbox.waitForFinal(submitted.id, timeoutMs));
}

/**
 * Sends one transaction to a card contract (or, with `to`, to the escrow) through the outbox and
 * waits until it is mined (see waitUntilMined). Refusals become their codes (transactionRefusalError).
 * `alongside` is stored with the transaction (OutboxSubmission.alongside).
 */
export async function submitPartnerTransaction(
  deps: { config: Readonly<Config>; outbox: TransactionOutbox },
  contract: Pick<PartnerCardContract, 'chain' | 'address'>,
  signer: TransactionSigner,
  idempotencyKey: string,
  data: Hex,
  to: Address = contract.address,
  alongside?: OutboxSubmission['alongside'],
): Promise<{ transaction: OutboxTransaction }> {
  let submitted;
  try {
    submitted = await deps.outbox.submit({ idempotencyKey, chain: contract.chain, signer, to, data, ...(alongside ? { alongside } : {}) });
  } catch (error) {
    throw transactionRefusalError(error);
  }
  killAfterSubmitForTests(idempotencyKey);
  const transaction = await waitUntilMined(deps, (timeoutMs) => deps.outbox.waitForFinal(submitted.id, timeoutMs));
  return { transaction };
}

/**
 * A card transaction that was mined but reverted: every input was checked under the card's claim
 * (cards/claims) before it was sent, so the card changed meanwhile by a way the claims do not cover
 * (an escrow link claimed, a transfer not made by this service): 4209, try again. One that failed
 * (its nonce taken by a transaction the outbox never signed) is a fault on the service's side.
 */
export function assertSucceeded(transaction: OutboxTransaction, what: string): void {
  if (transaction.status === 'mined' && transaction.receiptStatus === 'reverted') {
    throw new AppError(Errors.CardBusy, { detail: `the ${what} transaction ${transaction.txHash} reverted: the card changed meanwhile` });
  }
  if (transaction.status !== 'mined' || transaction.receiptStatus !== 'success') {
    throw new Error(`${what} ${transaction.txHash} ended ${transaction.status} (${transaction.receiptStatus ?? transaction.error ?? 'no receipt'})`);
  }
}

/**
 * Tests stop a call as a crash would between the stored transaction and the answer:
 * WALLET_TEST_KILL_AFTER_SUBMIT=<key prefix> kills the process (SIGKILL) once a transaction whose
 * outbox key starts with it is stored.
 */
function killAfterSubmitForTests(idempotencyKey: string): void {
  const prefix = process.env.WALLET_TEST_KILL_AFTER_SUBMIT;
  if (prefix && idempotencyKey.startsWith(prefix)) process.kill(process.pid, 'SIGKILL');
}
