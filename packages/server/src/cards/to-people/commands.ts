import type { Hex } from 'viem';
import { resolvePeople, type PeopleResolution, type Person } from '../../people/index.ts';
import type { InviteDeps } from '../../people/invites.ts';
import type { KeyVault } from '../../custody/key-vault.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { TransactionOutbox } from '../../outbox/outbox.ts';
import type { PartnerRow } from '../../store/schema.ts';
import { operationKey, submittedOperation, type CallKey } from '../partner-signing.ts';
import { assertRecipient, transferCard, withHeldCard } from '../transfer/commands.ts';

/**
 * Runs the transactions of a call to people, then sends the invites of those whose card arrived
 * and gives back the invite quota of the rest (all of it when the call fails).
 */
export async function settleInvites<T>(
  resolution: PeopleResolution,
  cardName: string,
  partnerServiceName: string,
  run: () => Promise<{ result: T; done: boolean[] }>,
): Promise<T> {
  const all = resolution.recipients.map((_, index) => index);
  let outcome: { result: T; done: boolean[] };
  try {
    outcome = await run();
  } catch (error) {
    await resolution.releaseInvites(all);
    throw error;
  }
  const arrived = all.filter((index) => outcome.done[index]);
  try {
    await resolution.sendInvites(arrived, { cardName, partnerServiceName });
  } finally {
    // Even when the messenger refuses (501), the quota of those whose card did not arrive goes back.
    await resolution.releaseInvites(all.filter((index) => !outcome.done[index]));
  }
  return outcome.result;
}

/**
 * A11: sends a card the partner holds to a person by name and phone. Refusals as A10's
 * (withHeldCard: 404, 4209, 4201, then the PIN), then the person (their wallet; invite limits 4112,
 * 4114, 4115), then the transfer; the invite goes out once the card arrived. A retry under the
 * Idempotency-Key of a call that stopped after submitting answers that call's transfer.
 */
export async function sendCardToPerson(
  deps: InviteDeps & { vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox },
  input: { partner: PartnerRow; pin: string; nftId: number; cardId: number; person: Person; cardName: string; callKey?: CallKey | null | undefined },
): Promise<{ hash: Hex }> {
  const { partner } = input;
  const outboxKey = operationKey('card-send', input.callKey);
  const earlier = await submittedOperation(deps, input.callKey, outboxKey);
  if (earlier) return { hash: earlier.txHash };
  return withHeldCard(deps, { ...input, outboxKey }, async (contract, signer) => {
    const resolution = await resolvePeople(deps, { partnerId: partner.id, people: [input.person] });
    const recipient = resolution.recipients[0]!;
    assertRecipient(partner, recipient.address);
    return settleInvites(resolution, input.cardName, partner.service_name, () =>
      transferCard(deps, { partnerId: partner.id, contract, signer, to: recipient.address, cardId: input.cardId, outboxKey }).then((result) => ({ result, done: [true] })),
    );
  });
}
