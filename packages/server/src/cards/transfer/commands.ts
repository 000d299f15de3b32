import { encodeFunctionData, zeroAddress, type Address, type Hex } from 'viem';
import { cardNftAbi } from '@wallet-service/contracts';
import { AppError } from '../../errors/app-error.ts';
import type { TransactionSigner } from '../../outbox/outbox.ts';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/database.ts';
import type { KeyVault } from '../../custody/key-vault.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { TransactionOutbox } from '../../outbox/outbox.ts';
import type { PartnerRow } from '../../store/schema.ts';
import { chainHolderOf } from '../metadata/designs.ts';
import { assertSucceeded, cardContractById, operationKey, submitPartnerTransaction, submittedOperation, unlockPartnerKey, type CallKey, type PartnerCardContract } from '../partner-signing.ts';
import { Errors } from '../../errors/codes.ts';
import { withCardClaim, type ClaimedCard } from '../claims/commands.ts';
import { holdWebhookEvent } from '../../webhooks/events.ts';

export interface SendCardInput {
  partner: PartnerRow;
  pin: string;
  nftId: number;
  cardId: number;
  to: Address;
  /** The Idempotency-Key the call runs under, if any. */
  callKey?: CallKey | null | undefined;
}

/**
 * A10: sends one card the partner holds to `to`. Refusals: a bad recipient 400; an unknown contract
 * 404; another operation on the card under way 4209 (cards/claims); then, holding the card's claim,
 * an unknown or burned card 404, a card the partner does not hold (sent, in escrow) 4201; then the
 * PIN (4006, 403); then the transfer through the outbox; answers once it is mined. A retry under
 * the Idempotency-Key of a call that stopped after submitting answers that call's transaction (the
 * card has moved: the checks would refuse it now).
 */
export async function sendCard(deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox }, input: SendCardInput): Promise<{ hash: Hex }> {
  const outboxKey = operationKey('card-send', input.callKey);
  const earlier = await submittedOperation(deps, input.callKey, outboxKey);
  if (earlier) {
    assertSucceeded(earlier, 'card send');
    return { hash: earlier.txHash };
  }
  assertRecipient(input.partner, input.to);
  return withHeldCard(deps, { ...input, outboxKey }, (contract, signer) =>
    transferCard(deps, { partnerId: input.partner.id, contract, signer, to: input.to, cardId: input.cardId, outboxKey }),
  );
}

/**
 * Runs `send` with the partner's unlocked key while holding the claim on the card (cards/claims):
 * 4209 when another operation holds it; whether the partner holds the card is read from the chain
 * after the claim is taken (404, 4201), then the PIN is tried (4006, 403). The claim is let go when
 * `send` ends (kept while its transaction is still pending).
 */
export async function withHeldCard<T>(
  deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox },
  input: { partner: PartnerRow; pin: string; nftId: number; cardId: number; outboxKey: string },
  send: (contract: PartnerCardContract, signer: TransactionSigner) => Promise<T>,
): Promise<T> {
  const contract = await cardContractById(deps, input.nftId);
  return withCardClaim(deps, cardClaimOf(contract, input.cardId), input.outboxKey, async () => {
    await assertPartnerHolds(deps, input.partner, contract, input.cardId);
    const signer = await unlockPartnerKey(deps, input.partner, input.pin);
    return send(contract, signer);
  });
}

/** The claim that names a card of a partner contract. */
export function cardClaimOf(contract: Pick<PartnerCardContract, 'chain' | 'address'>, cardId: number): ClaimedCard {
  return { chain: contract.chain, contract: contract.address, cardId };
}

/** A recipient of a sent card: not the zero address, not the partner itself (400). */
export function assertRecipient(partner: Pick<PartnerRow, 'main_address'>, to: string): void {
  const address = to.toLowerCase();
  if (address === zeroAddress) throw new AppError(Errors.BadRequest, { detail: 'to_address is the zero address' });
  if (address === partner.main_address.toLowerCase()) throw new AppError(Errors.BadRequest, { detail: 'the partner already holds the card' });
}

/**
 * Sends a checked card with the unlocked partner key, through the outbox; resolves once mined. The
 * card.sent event is stored with the transaction and goes out once it is mined (webhooks/release.ts).
 */
export async function transferCard(
  deps: { config: Readonly<Config>; outbox: TransactionOutbox },
  input: { partnerId: string; contract: PartnerCardContract; signer: TransactionSigner; to: Address; cardId: number; outboxKey?: string },
): Promise<{ hash: Hex }> {
  const data = encodeFunctionData({
    abi: cardNftAbi,
    functionName: 'transferFrom',
    args: [input.signer.address, input.to.toLowerCase() as Address, BigInt(input.cardId)],
  });
  const event = holdWebhookEvent({
    partnerId: input.partnerId,
    type: 'card.sent',
    data: { ...cardEventFields(input.contract, input.cardId), from: input.signer.address.toLowerCase(), to: input.to.toLowerCase() },
  });
  const outboxKey = input.outboxKey ?? operationKey('card-send', null);
  const { transaction } = await submitPartnerTransaction(deps, input.contract, input.signer, outboxKey, data, input.contract.address, event);
  assertSucceeded(transaction, 'card send');
  return { hash: transaction.txHash };
}

export interface BurnCardInput {
  partner: PartnerRow;
  pin: string;
  contract: PartnerCardContract;
  cardId: number;
  callKey?: CallKey | null | undefined;
}

/**
 * A14: burns a card of the partner's contract that the partner holds, under the card's claim (4209
 * while another operation holds it; then 4201 when it was sent away, 404 when there is none). The image stays. The card.deleted event is stored with the transaction.
 * A retry under the Idempotency-Key of a call that stopped after submitting answers that call's transaction.
 */
export async function burnCard(deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox }, input: BurnCardInput): Promise<{ hash: Hex }> {
  const outboxKey = operationKey('card-burn', input.callKey);
  const earlier = await submittedOperation(deps, input.callKey, outboxKey);
  if (earlier) {
    assertSucceeded(earlier, 'card burn');
    return { hash: earlier.txHash };
  }
  const { contract } = input;
  return withCardClaim(deps, cardClaimOf(contract, input.cardId), outboxKey, async () => {
    await assertPartnerHolds(deps, input.partner, contract, input.cardId);
    const signer = await unlockPartnerKey(deps, input.partner, input.pin);
    const data = encodeFunctionData({ abi: cardNftAbi, functionName: 'burn', args: [BigInt(input.cardId)] });
    const event = holdWebhookEvent({ partnerId: input.partner.id, type: 'card.deleted', data: cardEventFields(contract, input.cardId) });
    const { transaction } = await submitPartnerTransaction(deps, contract, signer, outboxKey, data, contract.address, event);
    assertSucceeded(transaction, 'card burn');
    return { hash: transaction.txHash };
  });
}

async function assertPartnerHolds(deps: { chains: ChainRegistry }, partner: PartnerRow, contract: PartnerCardContract, cardId: number): Promise<void> {
  const holder = await chainHolderOf(deps, contract, cardId);
  if (!holder) throw new AppError(Errors.NotFound, { detail: `card ${cardId} does not exist` });
  if (holder !== partner.main_address.toLowerCase()) throw new AppError(Errors.CardNotHeld);
}

/** What every card event says of the card. */
function cardEventFields(contract: PartnerCardContract, cardId: number) {
  return { chain: contract.chain, contract_address: contract.address.toLowerCase(), nft_id: contract.nftId, card_id: cardId };
}
