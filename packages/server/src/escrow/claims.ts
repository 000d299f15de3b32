import { encodeFunctionData, keccak256, type Address, type Hex } from 'viem';
import { cardEscrowAbi } from '@wallet-service/contracts';
import { cardUri } from '../cards/card-uri.ts';
import { findMintedCardDesign } from '../cards/metadata/designs.ts';
import { transactionRefusalError, waitUntilMined } from '../cards/partner-signing.ts';
import { AppError } from '../errors/app-error.ts';
import { OutboxRefusal, type OutboxTransaction } from '../outbox/outbox.ts';
import type { Services } from '../services.ts';
import type { EscrowClaimRow, UserRow } from '../store/schema.ts';
import { Errors } from '../errors/codes.ts';

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
export async function viewClaim(services: Services, input: ClaimInput): Promise<ClaimView> {
  const row = await findClaim(services, input);
  const [status, design, partner] = await Promise.all([
    claimStatus(services, row),
    findMintedCardDesign(services, { chain: row.chain, address: row.contract }, Number(row.token_id)),
    services.store.db.selectFrom('partners').select('service_name').where('id', '=', row.partner_id).executeTakeFirst(),
  ]);
  return {
    claim_id: row.id,
    chain: row.chain,
    nft_id: Number(row.nft_id),
    card_id: Number(row.token_id),
    contract_address: row.contract,
    card_uri: cardUri(services.config.publicUrl, Number(row.nft_id), Number(row.token_id)),
    name: design?.metadata.name ?? '',
    partner: partner?.service_name ?? '',
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
 * the link is sent again under the next attempt's key, MAX_CLAIM_ATTEMPTS in all per link.
 */
export async function claimCard(services: Services, member: UserRow, input: ClaimInput): Promise<ClaimView & { tx_hash: Hex }> {
  let row = await holdClaim(services, member, input);
  for (;;) {
    const transaction = await sendClaim(services, member, row, input);
    if (transaction.status === 'mined' && transaction.receiptStatus === 'success') {
      return { ...(await viewClaim(services, input)), tx_hash: transaction.txHash };
    }
    const outcome = transaction.status === 'failed' ? `failed (${transaction.error})` : 'reverted';
    if ((await claimStatus(services, row)) !== 'in_escrow') {
      throw new AppError(Errors.CardNotInEscrow, { detail: `the claim ${transaction.txHash} ${outcome}, and the card is no longer in escrow` });
    }
    if (row.claim_attempt + 1 >= MAX_CLAIM_ATTEMPTS) {
      throw new AppError(Errors.CardNotInEscrow, { detail: `the claim ${transaction.txHash} ${outcome}; ${MAX_CLAIM_ATTEMPTS} attempts were made` });
    }
    row = await nextAttempt(services, row, input);
  }
}

/** Claim transactions per link at most: one, and two more should the first not go through. */
const MAX_CLAIM_ATTEMPTS = 3;

/** The link's row, held for this member: the first member to claim a link keeps it. */
async function holdClaim(services: Services, member: UserRow, input: ClaimInput): Promise<EscrowClaimRow> {
  const row = await findClaim(services, input);
  if (row.claimed_by !== null && row.claimed_by !== member.id) throw new AppError(Errors.CardAlreadyClaimed);
  if (row.claimed_by !== null) return row;
  if ((await claimStatus(services, row)) !== 'in_escrow') throw new AppError(Errors.CardNotInEscrow, { detail: 'the partner took the card back' });
  await services.store.db
    .updateTable('escrow_claims')
    .set({ claimed_by: member.id, claimed_to: member.main_address.toLowerCase(), updated_ms: Date.now() })
    .where('id', '=', row.id)
    .where('claimed_by', 'is', null)
    .execute();
  const held = await findClaim(services, input);
  if (held.claimed_by !== member.id) throw new AppError(Errors.CardAlreadyClaimed);
  return held;
}

/** Sends (or finds again) the current attempt's claim transaction and waits until it is final. */
async function sendClaim(services: Services, member: UserRow, row: EscrowClaimRow, input: ClaimInput): Promise<OutboxTransaction> {
  const data = encodeFunctionData({
    abi: cardEscrowAbi,
    functionName: 'claim',
    args: [row.contract as Address, BigInt(row.token_id), secretBytes(input.secret), row.claimed_to as Address],
  });
  let submitted;
  try {
    submitted = await services.outbox.submit({
      idempotencyKey: claimKey(row),
      chain: row.chain,
      signer: await services.operator.signer(),
      to: row.escrow_address as Address,
      data,
    });
  } catch (error) {
    if (error instanceof OutboxRefusal && error.reason === 'reverted') {
      // Taken back between the check and the claim: nothing was sent, so the link is free again.
      await releaseClaim(services, row, member);
      throw new AppError(Errors.CardNotInEscrow, { detail: 'the partner took the card back', cause: error });
    }
    throw transactionRefusalError(error);
  }
  return waitUntilMined(services, (timeoutMs) => services.outbox.waitForFinal(submitted.id, timeoutMs));
}

/** Moves the link to its next attempt; of two calls doing it at once, one moves it and both use it. */
async function nextAttempt(services: Services, row: EscrowClaimRow, input: ClaimInput): Promise<EscrowClaimRow> {
  await services.store.db
    .updateTable('escrow_claims')
    .set({ claim_attempt: row.claim_attempt + 1, updated_ms: Date.now() })
    .where('id', '=', row.id)
    .where('claim_attempt', '=', row.claim_attempt)
    .execute();
  return findClaim(services, input);
}

async function findClaim(services: Services, input: ClaimInput): Promise<EscrowClaimRow> {
  const row = await services.store.db.selectFrom('escrow_claims').selectAll().where('id', '=', input.claimId).executeTakeFirst();
  if (!row || keccak256(secretBytes(input.secret)) !== row.claim_hash) throw new AppError(Errors.ClaimLinkInvalid);
  return row;
}

/** In escrow under this link's hash; else claimed through it (its claim transaction succeeded); else gone. */
async function claimStatus(services: Services, row: EscrowClaimRow): Promise<ClaimStatus> {
  const [depositor, claimHash] = await services.chains.get(row.chain).client.readContract({
    address: row.escrow_address as Address,
    abi: cardEscrowAbi,
    functionName: 'depositOf',
    args: [row.contract as Address, BigInt(row.token_id)],
  });
  if (depositor.toLowerCase() === row.depositor && claimHash === row.claim_hash) return 'in_escrow';
  const claim = await services.outbox.findByIdempotencyKey(claimKey(row));
  return claim?.status === 'mined' && claim.receiptStatus === 'success' ? 'claimed' : 'not_in_escrow';
}

async function releaseClaim(services: Services, row: EscrowClaimRow, member: UserRow): Promise<void> {
  await services.store.db
    .updateTable('escrow_claims')
    .set({ claimed_by: null, claimed_to: null, updated_ms: Date.now() })
    .where('id', '=', row.id)
    .where('claimed_by', '=', member.id)
    .execute();
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
