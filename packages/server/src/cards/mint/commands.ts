import { randomUUID } from 'node:crypto';
import { encodeFunctionData, type Address, type Hex, type Log } from 'viem';
import { cardNftAbi, MINT_GAS, mintBatchGasBound } from '@wallet-service/contracts';
import { AppError } from '../../errors/app-error.ts';
import { OutboxRefusal, type ReceiptWrite, type TransactionSigner } from '../../outbox/outbox.ts';
import type { Config } from '../../config/config.ts';
import type { DbTransaction, Store } from '../../store/database.ts';
import type { KeyVault } from '../../custody/key-vault.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import { finalReceipt } from '../../chain/final-receipt.ts';
import type { TransactionOutbox } from '../../outbox/outbox.ts';
import type { Logger } from 'pino';
import { epochSeconds } from '../../store/database.ts';
import type { CardDesignRow, CardMintBatchRow, OutboxRow, PartnerRow } from '../../store/schema.ts';
import { monthKey } from '../../lib/time.ts';
import { assertOwnContract, transactionRefusalError, unlockPartnerKey, waitUntilMined, type PartnerCardContract } from '../partner-signing.ts';
import { TRANSFER_TOPIC } from '../../card-index/transfer-logs.ts';
import { currentMintCount } from './mint-count.ts';
import { designOf, mintRuleViolation, type CardDesign, type MintDesignPayload } from './payload.ts';
import type { MintAnswer } from './schema.ts';
import { findDesignByIdempotencyKey, findSecureUploadNames, insertMintBatches, insertMintDesign, listDesignBatches, markBatchFailed, markBatchMinted, markBatchSubmitted, releaseMintCount, reserveMintCount } from './store.ts';
import { Errors } from '../../errors/codes.ts';
import { enqueueWebhookEvent } from '../../webhooks/events.ts';
import { listEndpoints } from '../../webhooks/store.ts';

/** Share of the block gas limit one mint transaction may use. */
const BLOCK_SHARE_PERCENT = 80n;
/** Most gas one transaction may have where EIP-7825 applies (Osaka), whatever the block's limit. */
const TRANSACTION_GAS_CAP = 16_777_216n;

export interface MintCardsInput {
  partner: PartnerRow;
  /** The partner's card contract, as checkedDesign found it. */
  contract: PartnerCardContract;
  /**
   * SHA-256 hex of the PIN, which unlocks the partner's key; or the key a caller unlocked itself
   * after running checkMint (the checks are not run twice).
   */
  authorization: { pin: string } | { signer: TransactionSigner };
  design: CardDesign;
  /** One card per entry (lower-case or checksummed addresses); repeats get one card each. */
  recipients: readonly Address[];
  /**
   * The partner's Idempotency-Key, if the call sent one: stored on the design in the transaction
   * that accepts the mint, so a retry with the key finishes that mint instead of minting again.
   */
  idempotencyKey?: string;
}

/**
 * What a mint did. `failCount` > 0 means a partial (or whole) failure: the cards of `cardIds` exist,
 * the others were not minted and are not counted in mint_count.
 */
export interface MintOutcome {
  /** Hash of the first mint transaction; '' when none was sent. */
  hash: Hex | '';
  /** Every mint transaction sent, in recipient order. */
  hashes: Hex[];
  /**
   * Card ids, per recipient in input order; null where that recipient's card was not minted. Within
   * one batch the ids follow the recipients' ascending address order (see inAscendingOrder).
   */
  cardIdsByRecipient: Array<number | null>;
  mintedCount: number;
  failCount: number;
}

/**
 * A7/A8: mints one card of `design` to each recipient, signed by the partner's key, through the
 * outbox, in as few `mintBatch` transactions as the block gas limit allows.
 *
 * Order: the contract (checkedDesign) and the monthly limit are checked (4005, 4080) before the PIN is tried, so a
 * refused mint does not cost a PIN attempt; then the key is unlocked (4006, 403); then, in the DB
 * transaction that stores the first batch's signed transaction, the cards are counted against
 * mint_limit (4080 again, atomically) and the design and its batches are stored; then each later
 * batch is signed into the outbox. A later batch that cannot be sent, or any that reverts, is given
 * back to mint_count. The answer comes once every batch is mined (the
 * lists catch the card index up with the chain before they answer, so they show the mint too).
 */
export async function mintCards(deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox; log: Logger }, input: MintCardsInput): Promise<MintOutcome> {
  const { partner, design, contract } = input;
  const recipients = input.recipients.map((address) => address.toLowerCase() as Address);
  if (input.idempotencyKey !== undefined) {
    const accepted = await findDesignByIdempotencyKey(deps.store.db, partner.id, input.idempotencyKey);
    if (accepted) return resumeMint(deps, accepted.id, recipients);
  }
  const checked = 'signer' in input.authorization ? input.authorization : undefined;
  if (!checked) await checkMint(deps, partner, design, recipients.length);
  const now = new Date();
  const period = monthKey(now, deps.config.timeZone);
  const signer = checked?.signer ?? (await unlockPartnerKey(deps, partner, (input.authorization as { pin: string }).pin));

  const chain = deps.chains.get(contract.chain);
  const batchSize = await mintBatchSize(deps, contract.chain);
  const designId = randomUUID();
  const createdAt = epochSeconds(now);
  const batches: CardMintBatchRow[] = [];
  /** Per batch, per recipient of the request's slice: the card's place in the batch. */
  const placesByBatch: number[][] = [];
  for (let start = 0, sequence = 0; start < recipients.length; start += batchSize, sequence += 1) {
    const { sorted: slice, places } = inAscendingOrder(recipients.slice(start, start + batchSize));
    placesByBatch.push(places);
    batches.push({
      id: randomUUID(),
      design_id: designId,
      partner_id: partner.id,
      chain: chain.name,
      contract: contract.address,
      sequence,
      recipients: JSON.stringify(slice),
      card_count: slice.length,
      period,
      status: 'reserved',
      outbox_id: null,
      tx_hash: null,
      first_token_id: null,
      error: null,
      created_at: createdAt,
      updated_at: createdAt,
    });
  }
  const designRow: CardDesignRow = {
    id: designId,
    partner_id: partner.id,
    chain: chain.name,
    contract: contract.address,
    nft_id: contract.nftId,
    name: design.metadata.name,
    metadata: JSON.stringify(design.metadata),
    secure: design.secure ? JSON.stringify(design.secure) : null,
    sendable: design.metadata.sendable ? 1 : 0,
    created_at: createdAt,
    idempotency_key: input.idempotencyKey ?? null,
  };
  // The mint is stored in the commit that stores its first batch's transaction, before that is
  // signed: one commit less a call, and a mint refused there (4080; 4202 or a node that does not
  // answer before it) leaves nothing behind.
  // The design goes out beside the count, without waiting for it (one round trip on PostgreSQL): a
  // count refused undoes the commit, design included.
  const storeMint = async (trx: DbTransaction) => {
    const [counted] = await Promise.all([reserveMintCount(trx, partner.id, recipients.length, period), insertMintDesign(trx, designRow, design.secureFiles)]);
    if (!counted) throw new AppError(Errors.MintMonthlyLimit);
  };
  // The batches go in once the first one's transaction is stored, that one already `submitted`.
  const storeBatches = (trx: DbTransaction, row: OutboxRow) => [
    insertMintBatches(trx, batches.map((batch, index) => (index === 0 ? { ...batch, status: 'submitted' as const, outbox_id: row.id, tx_hash: row.tx_hash } : batch))),
  ];

  // Sent one after another: a batch that cannot be paid for stops the ones after it from being tried.
  const settled: CardMintBatchRow[] = [];
  let stopped = false;
  for (const [index, batch] of batches.entries()) {
    if (stopped) {
      settled.push(await failBatch(deps, batch, 'not sent: an earlier batch of this mint could not be sent'));
      continue;
    }
    try {
      const transaction = await deps.outbox.submit({
        idempotencyKey: mintIdempotencyKey(batch.id),
        chain: batch.chain,
        signer,
        to: batch.contract as Address,
        data: encodeFunctionData({ abi: cardNftAbi, functionName: 'mintBatch', args: [JSON.parse(batch.recipients), design.metadata.sendable] }),
        // The contract's bound, not an estimate: a mintBatch of our own contract to checked
        // recipients does not revert, and estimating would run the whole batch once more.
        gas: mintBatchGasBound(batch.card_count),
        // Marked in the commit that stores the transaction: no batch is left `reserved` with its
        // transaction stored. Plain statements: the commit goes out behind them.
        ...(index === 0
          ? { beforeSigning: storeMint, alongsideStatements: storeBatches }
          : { alongsideStatements: (trx: DbTransaction, row: OutboxRow) => [markBatchSubmitted(trx, batch.id, { id: row.id, txHash: row.tx_hash })] }),
      });
      settled.push({ ...batch, status: 'submitted', outbox_id: transaction.id, tx_hash: transaction.txHash });
    } catch (error) {
      // Nothing of this mint was stored: the error is the answer.
      if (index === 0) throw transactionRefusalError(error);
      if (!(error instanceof OutboxRefusal)) deps.log.warn(`mint batch ${batch.id}: ${(error as Error).message}`);
      stopped = true;
      settled.push(await failBatch(deps, batch, (error as Error).message));
    }
  }

  return mintOutcome(await settleAll(deps, settled), placesByBatch);
}

/** Waits for every submitted batch to be mined or failed. */
function settleAll(deps: { config: Readonly<Config>; store: Store; chains: ChainRegistry; outbox: TransactionOutbox }, batches: CardMintBatchRow[]): Promise<CardMintBatchRow[]> {
  return Promise.all(batches.map((batch) => (batch.status === 'submitted' ? waitUntilMined(deps, (timeoutMs) => settleMintBatch(deps, batch, timeoutMs)) : batch)));
}

/** The outcome of settled batches, per recipient in request order (`placesByBatch`: see mintCards). */
function mintOutcome(finals: CardMintBatchRow[], placesByBatch: number[][]): MintOutcome {
  const cardIdsByRecipient: Array<number | null> = [];
  for (const [index, batch] of finals.entries()) {
    for (const place of placesByBatch[index]!) {
      cardIdsByRecipient.push(batch.status === 'minted' && batch.first_token_id !== null ? Number(batch.first_token_id) + place : null);
    }
  }
  const hashes = finals.flatMap((batch) => (batch.tx_hash ? [batch.tx_hash as Hex] : []));
  const mintedCount = cardIdsByRecipient.filter((id) => id !== null).length;
  return { hash: hashes[0] ?? '', hashes, cardIdsByRecipient, mintedCount, failCount: cardIdsByRecipient.length - mintedCount };
}

/**
 * Finishes a mint an earlier call with the same Idempotency-Key accepted (its process may have
 * stopped after storing it): batches that reached the outbox are followed to their end, those that
 * never did are failed (their cards given back), and the answer is the one that call would have
 * given. `recipients` are the request's, which the key's fingerprint guarantees are the same.
 */
async function resumeMint(deps: { config: Readonly<Config>; store: Store; chains: ChainRegistry; outbox: TransactionOutbox }, designId: string, recipients: Address[]): Promise<MintOutcome> {
  const batches = await listDesignBatches(deps.store.db, designId);
  const placesByBatch: number[][] = [];
  const current: CardMintBatchRow[] = [];
  let start = 0;
  for (const batch of batches) {
    placesByBatch.push(inAscendingOrder(recipients.slice(start, start + batch.card_count)).places);
    start += batch.card_count;
    if (batch.status !== 'reserved') {
      current.push(batch);
      continue;
    }
    const transaction = await deps.outbox.findByIdempotencyKey(mintIdempotencyKey(batch.id));
    if (transaction) {
      await markBatchSubmitted(deps.store.db, batch.id, transaction);
      current.push({ ...batch, status: 'submitted', outbox_id: transaction.id, tx_hash: transaction.txHash });
    } else {
      current.push(await failBatch(deps, batch, 'not sent: the mint call ended before this batch was signed'));
    }
  }
  return mintOutcome(await settleAll(deps, current), placesByBatch);
}

/**
 * The checks of a mint that need no PIN, after its contract's (checkedDesign, 4005): the monthly
 * limit (4080, a first look; the count itself is taken atomically when the batches are stored) and
 * the secure files (400). A caller that unlocks the key itself (A8) runs them first, so a refused mint
 * costs no PIN attempt and leaves nothing behind.
 */
export async function checkMint(deps: { config: Readonly<Config>; store: Store }, partner: PartnerRow, design: CardDesign, cards: number): Promise<void> {
  if (cards === 0) throw new AppError(Errors.BadRequest, { detail: 'no recipients' });
  if (currentMintCount(partner, deps.config.timeZone) + cards > partner.mint_limit) throw new AppError(Errors.MintMonthlyLimit);
  await assertOwnSecureFiles(deps, partner.id, design.secureFiles);
}

/**
 * The design of a payload that passed its schema, after the rules a schema cannot say (400), with
 * the partner's contract it names (4005 when there is none).
 */
export async function checkedDesign(
  payload: MintDesignPayload,
  partner: Parameters<typeof assertOwnContract>[1],
  services: Parameters<typeof assertOwnContract>[0],
): Promise<{ design: CardDesign; contract: PartnerCardContract }> {
  const violation = mintRuleViolation(payload);
  if (violation) throw new AppError(Errors.BadRequest, { detail: violation });
  const contract = await assertOwnContract(services, partner, payload.contract_address);
  return { design: designOf(payload), contract };
}

export function mintAnswer(outcome: MintOutcome): MintAnswer {
  return {
    hash: outcome.hash,
    hashes: outcome.hashes,
    card_ids: outcome.cardIdsByRecipient,
    minted_count: outcome.mintedCount,
    fail_count: outcome.failCount,
  };
}

/**
 * A batch's recipients in ascending address order, which is the order its cards are minted in: the
 * contract then finds an address's cards in the batch by binary search (balanceOf). `places[i]`
 * is where `recipients[i]` went; repeats keep their request order.
 */
export function inAscendingOrder(recipients: readonly Address[]): { sorted: Address[]; places: number[] } {
  // Lower-case hex of one length: string order is numeric order.
  const order = recipients.map((_, index) => index).sort((a, b) => (recipients[a]! < recipients[b]! ? -1 : recipients[a]! > recipients[b]! ? 1 : a - b));
  const places: number[] = new Array(recipients.length);
  for (const [place, index] of order.entries()) places[index] = place;
  return { sorted: order.map((index) => recipients[index]!), places };
}

export function mintIdempotencyKey(batchId: string): string {
  return `mint:${batchId}`;
}

/**
 * Brings a submitted batch to its end state once its transaction is final: `minted` with the id of
 * its first card (from the receipt's Transfer logs), or `failed` with its cards given back to
 * mint_count. Each move is one guarded update, so the count is given back exactly once whoever
 * (the mint call or the recovery after a crash) gets there first.
 */
export async function settleMintBatch(deps: { store: Store; chains: ChainRegistry; outbox: TransactionOutbox }, batch: CardMintBatchRow, timeoutMs = 120_000): Promise<CardMintBatchRow> {
  if (!batch.outbox_id) throw new Error(`mint batch ${batch.id} has no transaction`);
  // Marked minted in the commit that records the receipt, when this process records it.
  const mintedWithReceipt: ReceiptWrite = async (trx, mined, logs) => {
    if (mined.receiptStatus === 'success') await markMinted(trx, batch, mined.txHash, firstTokenIdOf(batch, logs));
  };
  const transaction = await deps.outbox.waitForFinal(batch.outbox_id, timeoutMs, mintedWithReceipt);
  if (transaction.status === 'mined' && transaction.receiptStatus === 'success') {
    // The logs came with the settlement when this process saw it mined; else the node has them.
    const logs = transaction.logs ?? (await finalReceipt(deps.chains.get(batch.chain), transaction.txHash)).logs;
    const firstTokenId = firstTokenIdOf(batch, logs);
    if (!transaction.receiptWritesDone?.has(mintedWithReceipt)) await deps.store.groupCommit((trx) => markMinted(trx, batch, transaction.txHash, firstTokenId));
    return { ...batch, status: 'minted', first_token_id: firstTokenId };
  }
  return failBatch(deps, batch, transaction.error ?? 'the mint transaction reverted');
}

/**
 * The id of a batch's first card, from its receipt's Transfer logs (which must be the batch's cards).
 * Read from the topics (ERC-721's Transfer indexes from, to and the token id): decoding each log
 * against the contract's ABI took 1.3 ms for a batch of 100 cards (0.02 ms so), and it runs in the
 * commit that records the receipt.
 */
function firstTokenIdOf(batch: CardMintBatchRow, logs: readonly Log[]): number {
  const tokenIds = logs
    .filter((log) => log.topics.length === 4 && log.topics[0]?.toLowerCase() === TRANSFER_TOPIC && log.address.toLowerCase() === batch.contract && BigInt(log.topics[1]!) === 0n)
    .map((log) => BigInt(log.topics[3]!));
  if (tokenIds.length !== batch.card_count) throw new Error(`mint batch ${batch.id}: receipt shows ${tokenIds.length} cards, expected ${batch.card_count}`);
  return Number(tokenIds.reduce((first, tokenId) => (tokenId < first ? tokenId : first), tokenIds[0] ?? 0n));
}

/** `submitted` to `minted` with its card.minted webhook event, once whoever gets there first. */
async function markMinted(trx: DbTransaction, batch: CardMintBatchRow, txHash: string, firstTokenId: number): Promise<void> {
  const marking = markBatchMinted(trx, batch.id, firstTokenId);
  // Read beside the mark, not after its answer (a round trip less on PostgreSQL); unused when the
  // batch had moved on already.
  const endpoints = listEndpoints(trx, batch.partner_id);
  endpoints.catch(() => undefined);
  if (!(await marking)) {
    await endpoints;
    return;
  }
  const owners = JSON.parse(batch.recipients) as string[];
  await enqueueWebhookEvent(trx, {
    endpoints,
    partnerId: batch.partner_id,
    type: 'card.minted',
    data: { batch_id: batch.id, chain: batch.chain, contract_address: batch.contract, tx_hash: txHash, cards: owners.map((owner, place) => ({ card_id: firstTokenId + place, owner })) },
  });
}

/** Marks a batch failed and gives its cards back to mint_count, once. */
export async function failBatch(deps: { store: Store }, batch: CardMintBatchRow, reason: string): Promise<CardMintBatchRow> {
  await deps.store.groupCommit(async (trx) => {
    if (!(await markBatchFailed(trx, batch.id, reason))) return;
    await releaseMintCount(trx, batch.partner_id, batch.card_count, batch.period);
    await enqueueWebhookEvent(trx, {
      partnerId: batch.partner_id,
      type: 'card.mint_failed',
      data: { batch_id: batch.id, chain: batch.chain, contract_address: batch.contract, tx_hash: batch.tx_hash, recipients: JSON.parse(batch.recipients) as string[], reason },
    });
  });
  return { ...batch, status: 'failed', error: reason };
}

/** Secure files a design names must be this partner's A6 uploads. */
async function assertOwnSecureFiles(deps: { store: Store }, partnerId: string, names: string[]): Promise<void> {
  if (names.length === 0) return;
  const known = new Set(await findSecureUploadNames(deps.store.db, partnerId, names));
  const missing = names.find((name) => !known.has(name));
  if (missing) throw new AppError(Errors.BadRequest, { detail: `secure file ${missing} is not a secure upload of this partner` });
}

const batchSizes = new Map<string, { size: number; at: number }>();

/**
 * Cards per mint transaction on a chain: as many as fit in the share of its block gas limit (and
 * in a transaction's gas cap), at most cards.maxBatchSize.
 */
async function mintBatchSize(deps: { config: Readonly<Config>; chains: ChainRegistry }, chainName: string): Promise<number> {
  const cached = batchSizes.get(chainName);
  if (cached && Date.now() - cached.at < 60_000) return Math.min(cached.size, deps.config.cards.maxBatchSize);
  const block = await deps.chains.get(chainName).client.getBlock({ blockTag: 'latest' });
  const blockShare = (block.gasLimit * BLOCK_SHARE_PERCENT) / 100n;
  const gas = blockShare < TRANSACTION_GAS_CAP ? blockShare : TRANSACTION_GAS_CAP;
  // As many cards as the contract's gas bound (MINT_GAS) lets into that gas.
  const size = Math.max(1, Number((gas - MINT_GAS.batch) / MINT_GAS.perCard));
  batchSizes.set(chainName, { size, at: Date.now() });
  return Math.min(size, deps.config.cards.maxBatchSize);
}
