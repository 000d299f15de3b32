import { randomUUID } from 'node:crypto';
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
import { cardContractById, submitPartnerTransaction, unlockPartnerKey, type PartnerCardContract } from '../partner-signing.ts';
import { Errors } from '../../errors/codes.ts';

export interface SendCardInput {
  partner: PartnerRow;
  pin: string;
  nftId: number;
  cardId: number;
  to: Address;
}

/**
 * A10/A11: sends one card the partner holds to `to`. Refusals before the PIN is tried: unknown
 * contract or card, or a burned one, 404; a card the partner does not hold (sent, in escrow) 4201;
 * a bad recipient 400. Then the PIN (4006, 403), then the transfer through the outbox; answers once
 * it is mined.
 */
export async function sendCard(deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox }, input: SendCardInput): Promise<{ hash: Hex }> {
  assertRecipient(input.partner, input.to);
  const contract = await checkCardSend(deps, input.partner, input.nftId, input.cardId);
  const signer = await unlockPartnerKey(deps, input.partner, input.pin);
  return transferCard(deps, { contract, signer, to: input.to, cardId: input.cardId });
}

/** The checks of a send that need no PIN (404, 4201); returns the card's contract. */
export async function checkCardSend(deps: { store: Store; chains: ChainRegistry }, partner: PartnerRow, nftId: number, cardId: number): Promise<PartnerCardContract> {
  const contract = await cardContractById(deps, nftId);
  await assertPartnerHolds(deps, partner, contract, cardId);
  return contract;
}

/** A recipient of a sent card: not the zero address, not the partner itself (400). */
export function assertRecipient(partner: Pick<PartnerRow, 'main_address'>, to: string): void {
  const address = to.toLowerCase();
  if (address === zeroAddress) throw new AppError(Errors.BadRequest, { detail: 'to_address is the zero address' });
  if (address === partner.main_address.toLowerCase()) throw new AppError(Errors.BadRequest, { detail: 'the partner already holds the card' });
}

/** Sends a checked card with the unlocked partner key, through the outbox; resolves once mined. */
export async function transferCard(
  deps: { config: Readonly<Config>; outbox: TransactionOutbox },
  input: { contract: PartnerCardContract; signer: TransactionSigner; to: Address; cardId: number },
): Promise<{ hash: Hex }> {
  const data = encodeFunctionData({
    abi: cardNftAbi,
    functionName: 'transferFrom',
    args: [input.signer.address, input.to.toLowerCase() as Address, BigInt(input.cardId)],
  });
  const { transaction } = await submitPartnerTransaction(deps, input.contract, input.signer, `card-send:${randomUUID()}`, data);
  return { hash: transaction.txHash };
}

export interface BurnCardInput {
  partner: PartnerRow;
  pin: string;
  contract: PartnerCardContract;
  cardId: number;
}

/** A14: burns a card of the partner's contract that the partner holds (4201 when it was sent away; 404 when there is none). The image stays. */
export async function burnCard(deps: { config: Readonly<Config>; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox }, input: BurnCardInput): Promise<{ hash: Hex }> {
  await assertPartnerHolds(deps, input.partner, input.contract, input.cardId);
  const signer = await unlockPartnerKey(deps, input.partner, input.pin);
  const data = encodeFunctionData({ abi: cardNftAbi, functionName: 'burn', args: [BigInt(input.cardId)] });
  const { transaction } = await submitPartnerTransaction(deps, input.contract, signer, `card-burn:${randomUUID()}`, data);
  return { hash: transaction.txHash };
}

async function assertPartnerHolds(deps: { chains: ChainRegistry }, partner: PartnerRow, contract: PartnerCardContract, cardId: number): Promise<void> {
  const holder = await chainHolderOf(deps, contract, cardId);
  if (!holder) throw new AppError(Errors.NotFound, { detail: `card ${cardId} does not exist` });
  if (holder !== partner.main_address.toLowerCase()) throw new AppError(Errors.CardNotHeld);
}
