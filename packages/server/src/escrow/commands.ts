import { randomBytes } from 'node:crypto';
import { encodeFunctionData, keccak256, zeroAddress, type Address, type Hex } from 'viem';
import { cardEscrowAbi, cardNftAbi } from '@wallet-service/contracts';
import { cardImage, listCards, listedCard, LIST_PAGE_SIZE } from '../cards/lists/commands.ts';
import { chainHolderOf } from '../cards/metadata/designs.ts';
import { catchUpWithChain } from '../cards/index-freshness.ts';
import { assertOwnContract, assertSucceeded, operationKey, submitPartnerTransaction, submittedOperation, unlockPartnerKey, type CallKey, type PartnerCardContract } from '../cards/partner-signing.ts';
import { escrowedTokenIds } from '../chain/escrow-events.ts';
import { AppError } from '../errors/app-error.ts';
import type { OutboxTransaction } from '../outbox/outbox.ts';
import type { ChainRegistry } from '../chain/chains.ts';
import type { Store } from '../store/database.ts';
import type { Config } from '../config/config.ts';
import type { KeyVault } from '../custody/key-vault.ts';
import type { TransactionOutbox } from '../outbox/outbox.ts';
import type { CardIndex } from '../card-index/index.ts';
import type { Logger } from 'pino';
import type { PartnerRow } from '../store/schema.ts';
import { walletWebUrl } from '../config/wallet-web-url.ts';
import type { EscrowCancelAnswer, EscrowDepositAnswer, EscrowListAnswer } from './schema.ts';
import { deleteDepositClaims, deleteEscrowClaims, findDepositClaimSecrets, insertEscrowClaims } from './store.ts';
import { claimSecretContext } from '../custody/sealed-values.ts';
import { Errors } from '../errors/codes.ts';
import { holdWebhookEvent } from '../webhooks/events.ts';
import { holdCardClaims } from '../cards/claims/commands.ts';
import { cardClaimOf } from '../cards/transfer/commands.ts';

/** The escrow contract a card contract lets move its cards (fixed when the card contract was deployed). */
async function escrowOf(deps: { chains: ChainRegistry }, contract: Pick<PartnerCardContract, 'chain' | 'address'>): Promise<Address> {
  const escrow = await deps.chains.get(contract.chain).client.readContract({ address: contract.address, abi: cardNftAbi, functionName: 'escrow' });
  if (escrow === zeroAddress) throw new AppError(Errors.BadRequest, { detail: 'this card contract has no escrow' });
  return escrow.toLowerCase() as Address;
}

/** The partner's own card contract named by a request (400 otherwise) and the escrow it lets move its cards. */
async function partnerEscrow(deps: { store: Store; chains: ChainRegistry }, partner: PartnerRow, contractAddress: string): Promise<{ contract: PartnerCardContract; escrow: Address }> {
  const contract = await assertOwnContract(deps, partner, contractAddress);
  return { contract, escrow: await escrowOf(deps, contract) };
}

async function isEscrowApproved(deps: { chains: ChainRegistry }, partner: PartnerRow, contract: PartnerCardContract, escrow: Address): Promise<boolean> {
  return deps.chains.get(contract.chain).client.readContract({
    address: contract.address,
    abi: cardNftAbi,
    functionName: 'isApprovedForAll',
    args: [partner.main_address as Address, escrow],
  });
}

/**
 * A15: lets the escrow contract move the partner's cards of its contract (ERC-721
 * `setApprovalForAll`), signed with the PIN; answers once mined. Needed once per contract; calling
 * it again sends the approval again and is harmless. A retry under the Idempotency-Key of a call
 * that stopped after submitting answers that call's transaction.
 */
export async function approveEscrow(
  deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox },
  partner: PartnerRow,
  input: { pin: string; contractAddress: string; callKey?: CallKey | null | undefined },
): Promise<{ tx_hash: Hex }> {
  const outboxKey = operationKey('escrow-approve', input.callKey);
  const earlier = await submittedOperation(deps, input.callKey, outboxKey);
  if (earlier) {
    assertSucceeded(earlier, 'escrow approval');
    return { tx_hash: earlier.txHash };
  }
  const { contract, escrow } = await partnerEscrow(deps, partner, input.contractAddress);
  const signer = await unlockPartnerKey(deps, partner, input.pin);
  const data = encodeFunctionData({ abi: cardNftAbi, functionName: 'setApprovalForAll', args: [escrow, true] });
  const { transaction } = await submitPartnerTransaction(deps, contract, signer, outboxKey, data);
  assertSucceeded(transaction, 'escrow approval');
  return { tx_hash: transaction.txHash };
}

/** A16: whether the escrow may move the partner's cards of the contract, as the chain says now. */
export async function escrowApproval(deps: { store: Store; chains: ChainRegistry }, partner: PartnerRow, contractAddress: string): Promise<{ approve: boolean }> {
  const { contract, escrow } = await partnerEscrow(deps, partner, contractAddress);
  return { approve: await isEscrowApproved(deps, partner, contract, escrow) };
}

/**
 * A17: puts the partner's cards into escrow, each behind a claim link of its own. Refusals before
 * the PIN is tried: not the partner's contract (400), escrow not approved (4203), every card held
 * by another operation under way (4209, cards/claims), none of the cards held by the partner (4201,
 * read after the claims are taken). Cards the partner does not hold, cards another operation holds,
 * and any the escrow refuses, are counted in fail_count and get no link. Each link carries a fresh 32-byte secret in its fragment;
 * only its hash is stored in clear, and goes on chain, so the store alone cannot claim a card.
 * Under an Idempotency-Key the secrets are also kept sealed under the master key for the key's
 * 24 h, so a retry after the first call stopped after submitting answers with the same links.
 */
export async function depositCards(
  deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox },
  partner: PartnerRow,
  input: { pin: string; cardIds: number[]; contractAddress: string; callKey?: CallKey | null | undefined },
): Promise<EscrowDepositAnswer> {
  const { contract, escrow } = await partnerEscrow(deps, partner, input.contractAddress);
  const depositKey = operationKey('escrow-deposit', input.callKey);
  const earlier = await submittedOperation(deps, input.callKey, depositKey);
  if (earlier) return depositAnswer(deps, { contract, escrow, cardIds: input.cardIds, depositKey, transaction: earlier, claims: await sealedClaims(deps, depositKey, input.cardIds) });
  if (!(await isEscrowApproved(deps, partner, contract, escrow))) {
    throw new AppError(Errors.EscrowNotApproved, { detail: 'call POST /v2/escrow/approve for this contract first' });
  }
  // Per card: a card another operation holds (cards/claims) is not deposited and counts in
  // fail_count, as one the partner does not hold; 4209 only when no card asked for could be claimed.
  const asked = input.cardIds.map((cardId) => cardClaimOf(contract, cardId));
  const hold = await holdCardClaims(deps, asked, depositKey);
  const claimed = hold.cards;
  try {
    return await depositClaimedCards(deps, partner, { ...input, contract, escrow, depositKey, claimedIds: claimed.map((card) => Number(card.cardId)) });
  } finally {
    await hold.release();
  }
}

/** A17 once the cards it may deposit are claimed: holding read from the chain now, then the PIN, then the deposit. */
async function depositClaimedCards(
  deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox },
  partner: PartnerRow,
  input: { pin: string; cardIds: number[]; callKey?: CallKey | null | undefined; contract: PartnerCardContract; escrow: Address; depositKey: string; claimedIds: number[] },
): Promise<EscrowDepositAnswer> {
  const { contract, escrow, depositKey } = input;
  if (input.claimedIds.length === 0) throw new AppError(Errors.CardBusy);
  const partnerAddress = partner.main_address.toLowerCase();
  const holders = await Promise.all(input.claimedIds.map((cardId) => chainHolderOf(deps, contract, cardId)));
  const held = input.claimedIds.filter((_, index) => holders[index] === partnerAddress);
  if (held.length === 0) throw new AppError(Errors.CardNotHeld, { detail: 'none of card_ids is held by the partner' });
  const signer = await unlockPartnerKey(deps, partner, input.pin);

  const now = Date.now();
  const claims = held.map((cardId) => {
    const secret = `0x${randomBytes(32).toString('hex')}` as Hex;
    return { cardId, secret, id: randomBytes(16).toString('base64url'), claimHash: keccak256(secret) };
  });
  const { masterKeyId, sealed } = input.callKey
    ? await deps.vault.sealValues(claims.map((claim) => ({ value: claim.secret, context: claimSecretContext(claim.id) })))
    : { masterKeyId: null, sealed: [] };
  // A call resumed with nothing submitted: the rows a stopped first call stored under this key name
  // no deposit; removed so that a later retry rebuilds its links from this call's claims only.
  if (input.callKey?.resumed) await deleteDepositClaims(deps.store.db, depositKey);
  // Stored before the deposit is sent, so a card deposited under a hash always has its row.
  await insertEscrowClaims(
    deps.store.db,
    claims.map((claim, index) => ({
      id: claim.id,
      chain: contract.chain,
      escrow_address: escrow,
      nft_id: contract.nftId,
      contract: contract.address,
      token_id: claim.cardId,
      partner_id: partner.id,
      depositor: partnerAddress,
      claim_hash: claim.claimHash,
      deposit_key: depositKey,
      claimed_by: null,
      claimed_to: null,
      sealed_secret: sealed[index] ?? null,
      secret_master_key_id: masterKeyId,
      created_ms: now,
      updated_ms: now,
    })),
  );
  const data = encodeFunctionData({
    abi: cardEscrowAbi,
    functionName: 'deposit',
    args: [contract.address, claims.map((claim) => BigInt(claim.cardId)), claims.map((claim) => claim.claimHash)],
  });
  // Names every card asked for; released with those the receipt shows deposited (webhooks/release.ts).
  const event = holdWebhookEvent({
    partnerId: partner.id,
    type: 'escrow.created',
    data: { ...escrowEventFields(contract), cards: claims.map((claim) => ({ card_id: claim.cardId, claim_id: claim.id })) },
  });
  let transaction: OutboxTransaction;
  try {
    ({ transaction } = await submitPartnerTransaction(deps, contract, signer, depositKey, data, escrow, event));
    assertSucceeded(transaction, 'escrow deposit');
  } catch (error) {
    // Refused, or reverted as a whole: no card went into escrow. (A call that timed out keeps its
    // rows: the deposit may still be mined.)
    if (!(error instanceof AppError && error.code === Errors.ServiceUnavailable)) await deleteClaims(deps, depositKey, claims.map((claim) => claim.id));
    throw error;
  }
  return depositAnswer(deps, { contract, escrow, cardIds: input.cardIds, depositKey, transaction, claims });
}

interface DepositClaim {
  cardId: number;
  id: string;
  secret: Hex;
}

/** The claims of a keyed deposit with their secrets unsealed, in the order of `cardIds` as its first call made them. */
async function sealedClaims(deps: { store: Store; vault: KeyVault }, depositKey: string, cardIds: number[]): Promise<DepositClaim[]> {
  const rows = await findDepositClaimSecrets(deps.store.db, depositKey);
  rows.sort((a, b) => cardIds.indexOf(Number(a.token_id)) - cardIds.indexOf(Number(b.token_id)));
  return Promise.all(
    rows.map(async (row) => {
      if (row.sealed_secret === null || row.secret_master_key_id === null) throw new Error(`escrow claim ${row.id} of ${depositKey} keeps no secret`);
      return { cardId: Number(row.token_id), id: row.id, secret: (await deps.vault.openValue(row.secret_master_key_id, row.sealed_secret, claimSecretContext(row.id))) as Hex };
    }),
  );
}

/** A17's answer from its mined transaction: a link per card the receipt shows deposited; the claims of the others are removed. */
async function depositAnswer(
  deps: { config: Readonly<Config>; store: Store; chains: ChainRegistry },
  input: { contract: PartnerCardContract; escrow: Address; cardIds: number[]; depositKey: string; transaction: OutboxTransaction; claims: DepositClaim[] },
): Promise<EscrowDepositAnswer> {
  const { contract, escrow, transaction, claims } = input;
  assertSucceeded(transaction, 'escrow deposit');
  const deposited = await escrowedTokenIds(deps, { chain: contract.chain, txHash: transaction.txHash, escrow, contract: contract.address, eventName: 'Deposited' });
  const failed = claims.filter((claim) => !deposited.has(claim.cardId));
  if (failed.length > 0) await deleteClaims(deps, input.depositKey, failed.map((claim) => claim.id));
  const webUrl = walletWebUrl(deps.config);
  return {
    claim_links: claims.filter((claim) => deposited.has(claim.cardId)).map((claim) => `${webUrl}/claim/${claim.id}#${claim.secret.slice(2)}`),
    fail_count: input.cardIds.length - deposited.size,
    failed_card_ids: input.cardIds.filter((cardId) => !deposited.has(cardId)),
    tx_hash: transaction.txHash,
  };
}

/**
 * A18: the cards of the partner's contract that the partner put into escrow and nobody has claimed
 * or taken back, as the card index says (held by the escrow, sent there by the partner), 100 a page.
 */
export async function listEscrowedCards(
  deps: { config: Readonly<Config>; store: Store; chains: ChainRegistry; cardIndex: CardIndex; log: Logger },
  partner: PartnerRow,
  input: { contractAddress: string; cursor?: string | undefined },
): Promise<EscrowListAnswer> {
  const { contract, escrow } = await partnerEscrow(deps, partner, input.contractAddress);
  await catchUpWithChain(deps, contract.chain);
  const page = await listCards(deps, {
    chain: contract.chain,
    owner: escrow,
    contract: contract.address,
    sender: partner.main_address,
    cursor: input.cursor,
    limit: LIST_PAGE_SIZE,
  });
  return {
    name: contract.name,
    symbol_img: cardImage(deps, contract.address),
    cards: page.cards.map((card) => ({ ...listedCard(deps, contract.nftId, card), owner: card.owner, sender: card.sender })),
    next_cursor: page.nextCursor,
  };
}

/**
 * A19: takes cards out of escrow back to the partner; their claim links stop working. Each card is
 * claimed first (cards/claims): 4209 when another operation holds every one of them. Refused with
 * 4204 before the PIN is tried when none of the claimed cards is in escrow from this partner (read
 * after the claims are taken); the others, busy ones included, are counted in fail_count. A retry under the Idempotency-Key of a call that stopped after
 * submitting answers from that call's transaction.
 */
export async function cancelEscrow(
  deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox },
  partner: PartnerRow,
  input: { pin: string; cardIds: number[]; contractAddress: string; callKey?: CallKey | null | undefined },
): Promise<EscrowCancelAnswer> {
  const { contract, escrow } = await partnerEscrow(deps, partner, input.contractAddress);
  const outboxKey = operationKey('escrow-cancel', input.callKey);
  const earlier = await submittedOperation(deps, input.callKey, outboxKey);
  if (earlier) return cancelAnswer(deps, { contract, escrow, cardIds: input.cardIds, transaction: earlier });
  const asked = input.cardIds.map((cardId) => cardClaimOf(contract, cardId));
  const hold = await holdCardClaims(deps, asked, outboxKey);
  const claimed = hold.cards;
  try {
    return await cancelClaimedCards(deps, partner, { ...input, contract, escrow, outboxKey, claimedIds: claimed.map((card) => Number(card.cardId)) });
  } finally {
    await hold.release();
  }
}

/** A19 once the cards it may take back are claimed: what is in escrow read from the chain now, then the PIN, then the cancel. */
async function cancelClaimedCards(
  deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox },
  partner: PartnerRow,
  input: { pin: string; cardIds: number[]; contract: PartnerCardContract; escrow: Address; outboxKey: string; claimedIds: number[] },
): Promise<EscrowCancelAnswer> {
  const { contract, escrow, outboxKey } = input;
  if (input.claimedIds.length === 0) throw new AppError(Errors.CardBusy);
  const client = deps.chains.get(contract.chain).client;
  const deposits = await Promise.all(
    input.claimedIds.map((cardId) =>
      client.readContract({ address: escrow, abi: cardEscrowAbi, functionName: 'depositOf', args: [contract.address, BigInt(cardId)] }),
    ),
  );
  const partnerAddress = partner.main_address.toLowerCase();
  const inEscrow = input.claimedIds.filter((_, index) => deposits[index]![0].toLowerCase() === partnerAddress);
  if (inEscrow.length === 0) throw new AppError(Errors.CardNotInEscrow, { detail: 'none of card_ids is in escrow from this partner' });
  const signer = await unlockPartnerKey(deps, partner, input.pin);
  const data = encodeFunctionData({ abi: cardEscrowAbi, functionName: 'cancel', args: [contract.address, inEscrow.map(BigInt)] });
  // Names every card asked back; released with those the receipt shows returned (webhooks/release.ts).
  const event = holdWebhookEvent({ partnerId: partner.id, type: 'escrow.cancelled', data: { ...escrowEventFields(contract), card_ids: inEscrow } });
  const { transaction } = await submitPartnerTransaction(deps, contract, signer, outboxKey, data, escrow, event);
  return cancelAnswer(deps, { contract, escrow, cardIds: input.cardIds, transaction });
}

/** A19's answer from its mined transaction: the cards the receipt shows returned, the others failed. */
async function cancelAnswer(
  deps: { chains: ChainRegistry },
  input: { contract: PartnerCardContract; escrow: Address; cardIds: number[]; transaction: OutboxTransaction },
): Promise<EscrowCancelAnswer> {
  const { contract, escrow, transaction } = input;
  assertSucceeded(transaction, 'escrow cancel');
  const returned = await escrowedTokenIds(deps, { chain: contract.chain, txHash: transaction.txHash, escrow, contract: contract.address, eventName: 'Canceled' });
  return {
    fail_count: input.cardIds.length - returned.size,
    failed_card_ids: input.cardIds.filter((cardId) => !returned.has(cardId)),
    tx_hash: transaction.txHash,
  };
}

async function deleteClaims(deps: { store: Store }, depositKey: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await deleteEscrowClaims(deps.store.db, depositKey, ids);
}

/** What every escrow event says of the cards' contract. */
function escrowEventFields(contract: { chain: string; address: string; nftId: number }) {
  return { chain: contract.chain, contract_address: contract.address.toLowerCase(), nft_id: contract.nftId };
}
