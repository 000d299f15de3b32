import type { Logger } from 'pino';
import type { Static } from 'typebox';
import type { MemberCard as MemberCardSchema } from './schema.ts';
import type { Address, Hex } from 'viem';
import { zeroAddress } from 'viem';
import { AppError } from '../../errors/app-error.ts';
import { Errors } from '../../errors/codes.ts';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/database.ts';
import type { KeyVault } from '../../custody/key-vault.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { CardIndex } from '../../card-index/index.ts';
import type { TransactionOutbox } from '../../outbox/outbox.ts';
import type { UserRow } from '../../store/schema.ts';
import type { ListedCard } from '../../cards/lists/schema.ts';
import { listPartnerBapps, listPartnerNftCards } from '../../cards/lists/commands.ts';
import { chainHolderOf, findMintedCardDesign } from '../../cards/metadata/designs.ts';
import { cardContractById, operationKey, type PartnerCardContract } from '../../cards/partner-signing.ts';
import { cardClaimOf, transferCard } from '../../cards/transfer/commands.ts';
import { withCardClaim } from '../../cards/claims/commands.ts';
import { assertNotBlacklisted } from '../../a2a/policies/commands.ts';
import { parsePersonPair, personKey, reserveWallet } from '../../people/index.ts';
import { findMembers } from '../../people/members.ts';
import { phoneInCountry } from '../../lib/phone.ts';

type ListDeps = { config: Readonly<Config>; store: Store; chains: ChainRegistry; cardIndex: CardIndex; log: Logger };

type MemberCard = Static<typeof MemberCardSchema>;

/** The member's cards grouped by BApp, as A12 lists a partner's (the card index decides, 100 a page). */
export async function listMemberCards(deps: ListDeps, member: Pick<UserRow, 'main_address'>, input: { cursor?: string | undefined }) {
  const answer = await listPartnerBapps(deps, member, input);
  const bapps = await Promise.all(answer.bapps.map(async (bapp) => ({ ...bapp, cards: await describeCards(deps, bapp.nft_id, bapp.cards) })));
  return { bapps, next_cursor: answer.next_cursor };
}

/** More of the member's cards of one BApp, after its cards_next_cursor (A13's rules: 404 unknown nft_id, 400 foreign cursor). */
export async function listMemberBappCards(deps: ListDeps, member: Pick<UserRow, 'main_address'>, input: { nftId: number; cursor?: string | undefined }) {
  const page = await listPartnerNftCards(deps, member, input);
  return { ...page, cards: await describeCards(deps, input.nftId, page.cards) };
}

async function describeCards(deps: { store: Store }, nftId: number, cards: ListedCard[]): Promise<MemberCard[]> {
  const contract = await cardContractById(deps, nftId);
  return Promise.all(
    cards.map(async (card) => {
      const metadata = (await findMintedCardDesign(deps, contract, card.card_id))?.metadata;
      return {
        ...card,
        name: metadata?.name ?? `Card #${card.card_id}`,
        image: metadata?.image ?? '',
        ...(metadata?.animation_url ? { animation_url: metadata.animation_url } : {}),
        ...(metadata?.background_color ? { background_color: metadata.background_color } : {}),
        layout: metadata?.layout ?? 'general',
        sendable: metadata?.sendable ?? false,
        send_friend_only: metadata?.send_friend_only ?? false,
      };
    }),
  );
}

export interface MemberCardSend {
  nftId: number;
  cardId: number;
  /** SHA-256 hex of the PIN. */
  pin: string;
  toAddress?: string | undefined;
  /** `phone_country`: the region a national phone is written in (default `phoneDefaultCountry`). */
  toPerson?: { name: string; phone: string; phone_country?: string | undefined } | undefined;
}

/**
 * Sends a card the member holds. Refusals, all before the PIN is tried: 404 for an unknown contract;
 * 4209 (409) while another operation holds the card's claim (cards/claims); then, holding the
 * claim, 404 when the member does not hold it on chain (as the holder's view: whether it exists is
 * not told); 4208 for a `send_friend_only` card, 4207 for one that is not `sendable`; 400 without exactly one recipient,
 * to the zero address or to the member; 6500 a blacklisted address. Then the PIN (4006, 403 locked),
 * then the transfer through the outbox; answers once it is mined (503 when the chain is slower than
 * `cards.confirmTimeoutMs`: it stays in the outbox). A person by name and phone gets the card in
 * their member wallet, or in the wallet kept for them until they sign up.
 */
export async function sendMemberCard(
  deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox },
  member: Pick<UserRow, 'main_address' | 'key_id'>,
  input: MemberCardSend,
): Promise<{ hash: Hex; to_address: string }> {
  const contract = await cardContractById(deps, input.nftId);
  const outboxKey = operationKey('member-card-send', null);
  return withCardClaim(deps, cardClaimOf(contract, input.cardId), outboxKey, async () => {
    await assertSendableHeld(deps, member, contract, input.cardId);
    const to = await recipientAddress(deps, member, input);
    await assertNotBlacklisted(deps.store.db, [member.main_address as Address, to]);
    const key = await deps.vault.unlock(member.key_id, input.pin.toLowerCase());
    const { hash } = await transferCard(deps, { partnerId: contract.partnerId, contract, signer: { address: key.address, account: key.account }, to, cardId: input.cardId, outboxKey });
    return { hash, to_address: to };
  });
}

/** Holding the card's claim: 404 unless the member holds the card on chain, 4208 friend-only, 4207 not sendable. */
async function assertSendableHeld(deps: { store: Store; chains: ChainRegistry }, member: Pick<UserRow, 'main_address'>, contract: PartnerCardContract, cardId: number): Promise<void> {
  const found = await findMintedCardDesign(deps, contract, cardId);
  const holder = found && (await chainHolderOf(deps, contract, cardId));
  if (!found || holder !== member.main_address.toLowerCase()) throw new AppError(Errors.NotFound);
  if (found.metadata.send_friend_only) throw new AppError(Errors.CardFriendOnly);
  if (!found.metadata.sendable) throw new AppError(Errors.CardNotSendable);
}

async function recipientAddress(
  deps: { config: Readonly<Config>; store: Store; vault: KeyVault },
  member: Pick<UserRow, 'main_address'>,
  input: Pick<MemberCardSend, 'toAddress' | 'toPerson'>,
): Promise<Address> {
  if ((input.toAddress === undefined) === (input.toPerson === undefined)) {
    throw new AppError(Errors.BadRequest, { detail: 'give exactly one of to_address and to_person' });
  }
  let address: string;
  if (input.toAddress !== undefined) {
    address = input.toAddress.toLowerCase();
    if (address === zeroAddress) throw new AppError(Errors.BadRequest, { detail: 'to_address is the zero address' });
  } else {
    const { name, phone, phone_country } = input.toPerson!;
    const person = parsePersonPair([name, phoneInCountry(phone, phone_country)], 0, deps.config.phoneDefaultCountry);
    const found = (await findMembers(deps.store.db, [person])).get(personKey(person));
    address = (found?.main_address ?? (await reserveWallet(deps, person)).address).toLowerCase();
  }
  if (address === member.main_address.toLowerCase()) throw new AppError(Errors.BadRequest, { detail: 'the member already holds the card' });
  return address as Address;
}
