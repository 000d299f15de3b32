import { randomBytes, randomUUID } from 'node:crypto';
import { encodeFunctionData, keccak256, parseEventLogs, zeroAddress, type Address, type Hex } from 'viem';
import { cardEscrowAbi, cardNftAbi } from '@wallet-service/contracts';
import { cardImage, listCards, listedCard, LIST_PAGE_SIZE } from '../cards/lists/commands.ts';
import { chainHolderOf } from '../cards/metadata/designs.ts';
import { catchUpWithChain } from '../cards/index-freshness.ts';
import { assertOwnContract, submitPartnerTransaction, unlockPartnerKey, type PartnerCardContract } from '../cards/partner-signing.ts';
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
import { deleteEscrowClaims, insertEscrowClaims } from './store.ts';
import { Errors } from '../errors/codes.ts';

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
 * it again sends the approval again and is harmless.
 */
export async function approveEscrow(deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox }, partner: PartnerRow, input: { pin: string; contractAddress: string }): Promise<{ tx_hash: Hex }> {
  const { contract, escrow } = await partnerEscrow(deps, partner, input.contractAddress);
  const signer = await unlockPartnerKey(deps, partner, input.pin);
  const data = encodeFunctionData({ abi: cardNftAbi, functionName: 'setApprovalForAll', args: [escrow, true] });
  const { transaction } = await submitPartnerTransaction(deps, contract, signer, `escrow-approve:${randomUUID()}`, data);
  assertSucceeded(transaction, 'approval');
  return { tx_hash: transaction.txHash };
}

/** A16: whether the escrow may move the partner's cards of the contract, as the chain says now. */
export async function escrowApproval(deps: { store: Store; chains: ChainRegistry }, partner: PartnerRow, contractAddress: string): Promise<{ approve: boolean }> {
  const { contract, escrow } = await partnerEscrow(deps, partner, contractAddress);
  return { approve: await isEscrowApproved(deps, partner, contract, escrow) };
}

/**
 * A17: puts the partner's cards into escrow, each behind a claim link of its own. Refusals before
 * the PIN is tried: not the partner's contract (400), escrow not approved (4203), none of the cards
 * held by the partner (4201). Cards the partner does not hold, and any the escrow refuses, are
 * counted in fail_count and get no link. Each link carries a fresh 32-byte secret in its fragment;
 * only its hash is stored, and goes on chain, so the store alone cannot claim a card.
 */
export async function depositCards(
  deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox },
  partner: PartnerRow,
  input: { pin: string; cardIds: number[]; contractAddress: string },
): Promise<EscrowDepositAnswer> {
  const { contract, escrow } = await partnerEscrow(deps, partner, input.contractAddress);
  if (!(await isEscrowApproved(deps, partner, contract, escrow))) {
    throw new AppError(Errors.EscrowNotApproved, { detail: 'call POST /v2/escrow/approve for this contract first' });
  }
  const partnerAddress = partner.main_address.toLowerCase();
  const holders = await Promise.all(input.cardIds.map((cardId) => chainHolderOf(deps, contract, cardId)));
  const held = input.cardIds.filter((_, index) => holders[index] === partnerAddress);
  if (held.length === 0) throw new AppError(Errors.CardNotHeld, { detail: 'none of card_ids is held by the partner' });
  const signer = await unlockPartnerKey(deps, partner, input.pin);

  const depositKey = `escrow-deposit:${randomUUID()}`;
  const now = Date.now();
  const claims = held.map((cardId) => {
    const secret = `0x${randomBytes(32).toString('hex')}` as Hex;
    return { cardId, secret, id: randomBytes(16).toString('base64url'), claimHash: keccak256(secret) };
  });
  // Stored before the deposit is sent, so a card deposited under a hash always has its row.
  await insertEscrowClaims(
    deps.store.db,
    claims.map((claim) => ({
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
      created_ms: now,
      updated_ms: now,
    })),
  );
  const data = encodeFunctionData({
    abi: cardEscrowAbi,
    functionName: 'deposit',
    args: [contract.address, claims.map((claim) => BigInt(claim.cardId)), claims.map((claim) => claim.claimHash)],
  });
  let transaction: OutboxTransaction;
  try {
    ({ transaction } = await submitPartnerTransaction(deps, contract, signer, depositKey, data, escrow));
    assertSucceeded(transaction, 'deposit');
  } catch (error) {
    // Refused, or reverted as a whole: no card went into escrow. (A call that timed out keeps its
    // rows: the deposit may still be mined.)
    if (!(error instanceof AppError && error.code === Errors.ServiceUnavailable)) await deleteClaims(deps, depositKey, claims.map((claim) => claim.id));
    throw error;
  }
  const deposited = new Set(
    (await escrowEvents(deps, contract.chain, transaction.txHash, escrow, 'Deposited'))
      .filter((event) => event.args.nft.toLowerCase() === contract.address)
      .map((event) => Number(event.args.tokenId)),
  );
  const failed = claims.filter((claim) => !deposited.has(claim.cardId));
  if (failed.length > 0) await deleteClaims(deps, depositKey, failed.map((claim) => claim.id));
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
 * A19: takes cards out of escrow back to the partner; their claim links stop working. Refused with
 * 4204 before the PIN is tried when none of the cards is in escrow from this partner; the others
 * are counted in fail_count.
 */
export async function cancelEscrow(
  deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox },
  partner: PartnerRow,
  input: { pin: string; cardIds: number[]; contractAddress: string },
): Promise<EscrowCancelAnswer> {
  const { contract, escrow } = await partnerEscrow(deps, partner, input.contractAddress);
  const client = deps.chains.get(contract.chain).client;
  const deposits = await Promise.all(
    input.cardIds.map((cardId) =>
      client.readContract({ address: escrow, abi: cardEscrowAbi, functionName: 'depositOf', args: [contract.address, BigInt(cardId)] }),
    ),
  );
  const partnerAddress = partner.main_address.toLowerCase();
  const inEscrow = input.cardIds.filter((_, index) => deposits[index]![0].toLowerCase() === partnerAddress);
  if (inEscrow.length === 0) throw new AppError(Errors.CardNotInEscrow, { detail: 'none of card_ids is in escrow from this partner' });
  const signer = await unlockPartnerKey(deps, partner, input.pin);
  const data = encodeFunctionData({ abi: cardEscrowAbi, functionName: 'cancel', args: [contract.address, inEscrow.map(BigInt)] });
  const { transaction } = await submitPartnerTransaction(deps, contract, signer, `escrow-cancel:${randomUUID()}`, data, escrow);
  assertSucceeded(transaction, 'cancel');
  const returned = new Set(
    (await escrowEvents(deps, contract.chain, transaction.txHash, escrow, 'Canceled'))
      .filter((event) => event.args.nft.toLowerCase() === contract.address)
      .map((event) => Number(event.args.tokenId)),
  );
  return {
    fail_count: input.cardIds.length - returned.size,
    failed_card_ids: input.cardIds.filter((cardId) => !returned.has(cardId)),
    tx_hash: transaction.txHash,
  };
}

/** A mined transaction that reverted as a whole is a fault on the service's side here: every input was checked. */
function assertSucceeded(transaction: OutboxTransaction, what: string): void {
  if (transaction.status !== 'mined' || transaction.receiptStatus !== 'success') {
    throw new Error(`escrow ${what} ${transaction.txHash} ended ${transaction.status} (${transaction.receiptStatus ?? transaction.error ?? 'no receipt'})`);
  }
}

async function escrowEvents<Name extends 'Deposited' | 'Canceled'>(deps: { chains: ChainRegistry }, chain: string, hash: Hex, escrow: Address, eventName: Name) {
  const receipt = await deps.chains.get(chain).client.getTransactionReceipt({ hash });
  const logs = receipt.logs.filter((log) => log.address.toLowerCase() === escrow);
  return parseEventLogs({ abi: cardEscrowAbi, logs, eventName });
}

async function deleteClaims(deps: { store: Store }, depositKey: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await deleteEscrowClaims(deps.store.db, depositKey, ids);
}
