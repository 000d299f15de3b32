import { encodeFunctionData, keccak256, type Address, type Hex } from 'viem';
import { cardEscrowAbi } from '@wallet-service/contracts';
import { cardUri } from '../../cards/card-uri.ts';
import { findMintedCardDesign } from '../../cards/metadata/designs.ts';
import { transactionRefusalError, waitUntilMined } from '../../cards/partner-signing.ts';
import { AppError } from '../../errors/app-error.ts';
import { OutboxRefusal, type OutboxTransaction } from '../../outbox/outbox.ts';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/database.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { TransactionOutbox } from '../../outbox/outbox.ts';
import type { Operator } from '../../operator/operator.ts';
import type { EscrowClaimRow, UserRow } from '../../store/schema.ts';
import { advanceClaimAttempt, findEscrowClaim, findPartnerServiceName, holdEscrowClaim, releaseEscrowClaim } from './store.ts';
import { Errors } from '../../errors/codes.ts';
import { holdWebhookEvent } from '../../webhooks/events.ts';
import { withCardClaim } from '../../cards/claims/commands.ts';

/** Where a claimed card stands, as the chain says. */
export type ClaimStatus = 'in_escrow' | 'claimed' | 'not_in_escrow';

export interface ClaimView {
  claim_id: string;
  chain: string;
  nft_id: number;
  card_id: number;
  contract_address: string;
  card_uri: string;
  /** The card's name, from its mint. */
  name: string;
  /** The service name of the partner that put the card into escrow. */
  partner: string;
  status: ClaimStatus;
  /** Where the card went, once claimed through this link. */
  claimed_to: string | null;
}

export interface ClaimInput {
  claimId: string;
  /** The link's fragment: 32 bytes of hex. */
  secret: string;
}

/**
 * The card behind a claim link, for a signed-in member who has the whole link. An unknown id and a
 * wrong secret answer the same 4206, so the id alone (which may reach logs) tells nothing.
 */
export async function viewClaim(deps: { config: Readonly<Config>; store: Store; chains: ChainRegistry; outbox: TransactionOutbox }, input: ClaimInput): Promise<ClaimView> {
  const row = await findClaim(deps, input);
  const [status, design, partner] = await Promise.all([
    claimStatus(deps, row),
    findMintedCardDesign(deps, { chain: row.chain, address: row.contract }, Number(row.token_id)),
    findPartnerServiceName(deps.store.db, row.partner_id),
  ]);
  return {
    claim_id: row.id,
    chain: row.chain,
    nft_id: Number(row.nft_id),
    card_id: Number(row.token_id),
    contract_address: row.contract,
    card_uri: cardUri(deps.config.publicUrl, Number(row.nft_id), Number(row.token_id)),
    name: design?.metadata.name ?? '',
    partner: partner ?? '',
    status,
    claimed_to: status === 'claimed' ? row.claimed_to : null,
  };
}

/**
 * Claims the card behind a link for the signed-in member: the operator sends the escrow's `claim`
 * with the link's secret, to the member's address, and the call answers once it is mined. The
 * first member to claim a link holds it (4205 for anyone after); the same member may call again
 * (a lost answer, a double click) and gets the same transaction. 4204 when the partner took the
 * card back. A claim transaction that did not go through while the card is still in escrow under
 * the link is sent again under the next attempt's key, MAX_CLAIM_ATTEMPTS in all per link. 4209
 * while another operation on the card (the partner's A19) is under way; the link stays the member's.
 */
export async function claimCard(deps: { config: Readonly<Config>; store: Store; chains: ChainRegistry; outbox: TransactionOutbox; operator: Operator }, member: UserRow, input: ClaimInput): Promise<ClaimView & { tx_hash: Hex }> {
  let row = await holdClaim(deps, member, input);
  for (;;) {
    // The card goes one operation at a time (cards/claims): a claim racing the partner's A19 cancel
    // of the card waits its turn (4209) instead of sending a transaction that would revert.
    const attempt = row;
    const card = { chain: attempt.chain, contract: attempt.contract, cardId: String(attempt.token_id) };
    const transaction = await withCardClaim(deps, card, claimKey(attempt), () => sendClaim(deps, member, attempt, input));
    if (transaction.status === 'mined' && transaction.receiptStatus === 'success') {
      return { ...(await viewClaim(deps, input)), tx_hash: transaction.txHash };
    }
    const outcome = transaction.status === 'failed' ? `failed (${transaction.error})` : 'reverted';
    if ((await claimStatus(deps, row)) !== 'in_escrow') {
      throw new AppError(Errors.CardNotInEscrow, { detail: `the claim ${transaction.txHash} ${outcome}, and the card is no longer in escrow` });
    }
    if (row.claim_attempt + 1 >= MAX_CLAIM_ATTEMPTS) {
      throw new AppError(Errors.CardNotInEscrow, { detail: `the claim ${transaction.txHash} ${outcome}; ${MAX_CLAIM_ATTEMPTS} attempts were made` });
    }
    row = await nextAttempt(deps, row, input);
  }
}

/** Claim transactions per link at most: one, and two more should the first not go through. */
const MAX_CLAIM_ATTEMPTS = 3;

/** The link's row, held for this member: the first member to claim a link keeps it. */
async function holdClaim(deps: { store: Store; chains: ChainRegistry; outbox: TransactionOutbox }, member: UserRow, input: ClaimInput): Promise<EscrowClaimRow> {
  const row = await findClaim(deps, input);
  if (row.claimed_by !== null && row.claimed_by !== member.id) throw new AppError(Errors.CardAlreadyClaimed);
  if (row.claimed_by !== null) return row;
  if ((await claimStatus(deps, row)) !== 'in_escrow') throw new AppError(Errors.CardNotInEscrow, { detail: 'the partner took the card back' });
  await holdEscrowClaim(deps.store.db, row.id, { id: member.id, claimedTo: member.main_address.toLowerCase() });
  const held = await findClaim(deps, input);
  if (held.claimed_by !== member.id) throw new AppError(Errors.CardAlreadyClaimed);
  return held;
}

/** Sends (or finds again) the current attempt's claim transaction and waits until it is final. */
async function sendClaim(deps: { config: Readonly<Config>; store: Store; outbox: TransactionOutbox; operator: Operator }, member: UserRow, row: EscrowClaimRow, input: ClaimInput): Promise<OutboxTransaction> {
  const data = encodeFunctionData({
    abi: cardEscrowAbi,
    functionName: 'claim',
    args: [row.contract as Address, BigInt(row.token_id), secretBytes(input.secret), row.claimed_to as Address],
  });
  let submitted;
  try {
    submitted = await deps.outbox.submit({
      idempotencyKey: claimKey(row),
      chain: row.chain,
      signer: await deps.operator.signer(),
      to: row.escrow_address as Address,
      data,
      // Stored with this attempt's transaction: only an attempt that is mined tells of the claim (webhooks/release.ts).
      alongside: holdWebhookEvent({
        partnerId: row.partner_id,
        type: 'escrow.claimed',
        data: { chain: row.chain, contract_address: row.contract, nft_id: row.nft_id, card_id: row.token_id, claim_id: row.id, claimed_to: row.claimed_to },
      }),
    });
  } catch (error) {
    if (error instanceof OutboxRefusal && error.reason === 'reverted') {
      // Taken back between the check and the claim: nothing was sent, so the link is free again.
      await releaseClaim(deps, row, member);
      throw new AppError(Errors.CardNotInEscrow, { detail: 'the partner took the card back', cause: error });
    }
    throw transactionRefusalError(error);
  }
  return waitUntilMined(deps, (timeoutMs) => deps.outbox.waitForFinal(submitted.id, timeoutMs));
}

/** Moves the link to its next attempt; of two calls doing it at once, one moves it and both use it. */
async function nextAttempt(deps: { store: Store }, row: EscrowClaimRow, input: ClaimInput): Promise<EscrowClaimRow> {
  await advanceClaimAttempt(deps.store.db, row.id, row.claim_attempt);
  return findClaim(deps, input);
}

async function findClaim(deps: { store: Store }, input: ClaimInput): Promise<EscrowClaimRow> {
  const row = await findEscrowClaim(deps.store.db, input.claimId);
  if (!row || keccak256(secretBytes(input.secret)) !== row.claim_hash) throw new AppError(Errors.ClaimLinkInvalid);
  return row;
}

/** In escrow under this link's hash; else claimed through it (its claim transaction succeeded); else gone. */
async function claimStatus(deps: { chains: ChainRegistry; outbox: TransactionOutbox }, row: EscrowClaimRow): Promise<ClaimStatus> {
  const [depositor, claimHash] = await deps.chains.get(row.chain).client.readContract({
    address: row.escrow_address as Address,
    abi: cardEscrowAbi,
    functionName: 'depositOf',
    args: [row.contract as Address, BigInt(row.token_id)],
  });
  if (depositor.toLowerCase() === row.depositor && claimHash === row.claim_hash) return 'in_escrow';
  const claim = await deps.outbox.findByIdempotencyKey(claimKey(row));
  return claim?.status === 'mined' && claim.receiptStatus === 'success' ? 'claimed' : 'not_in_escrow';
}

async function releaseClaim(deps: { store: Store }, row: EscrowClaimRow, member: UserRow): Promise<void> {
  await releaseEscrowClaim(deps.store.db, row.id, member.id);
}

/**
 * The outbox key of a link's claim transaction: one per link and attempt, whoever calls and however
 * often. The first attempt's key has no suffix.
 */
function claimKey(row: Pick<EscrowClaimRow, 'id' | 'claim_attempt'>): string {
  return row.claim_attempt === 0 ? `escrow-claim:${row.id}` : `escrow-claim:${row.id}:${row.claim_attempt}`;
}

function secretBytes(secret: string): Hex {
  return (secret.startsWith('0x') ? secret.toLowerCase() : `0x${secret.toLowerCase()}`) as Hex;
}
