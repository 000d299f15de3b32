import type { Hex } from 'viem';
import type { ChainRegistry } from '../chain/chains.ts';
import { escrowedTokenIds } from '../chain/escrow-events.ts';
import type { Store } from '../store/database.ts';
import { webhookPayload } from './events.ts';
import { dropHeldMessages, releaseHeldMessages, settledHeldMessages, type SettledHeldMessage } from './store.ts';

/** Transactions looked at per pass. */
const RELEASES_PER_PASS = 100;

/**
 * Lets go the messages held until their transaction was final (events.ts, holdWebhookEvent): when
 * the outbox has it mined and successful, each becomes pending with its `tx_hash` (and, for escrow
 * events, only the cards the receipt shows moved; none: dropped); when it failed or reverted, the
 * event did not happen and its messages are deleted. Every step is a guarded update on `held`
 * rows, so two instances, or a pass after a restart (the outbox records on start the receipts of
 * transactions mined while the service was down), release each message once. How many
 * transactions were settled.
 */
export async function releaseHeldWebhooks(deps: { store: Store; chains: Pick<ChainRegistry, 'get'> }, now = Date.now): Promise<number> {
  const settled = await settledHeldMessages(deps.store.db, RELEASES_PER_PASS);
  for (const message of settled) {
    const data = message.outbox_status === 'mined' && message.receipt_status === 'success' ? await minedEventData(deps, message) : null;
    if (data === null) await dropHeldMessages(deps.store.db, message.outbox_key);
    else await releaseHeldMessages(deps.store.db, message.outbox_key, webhookPayload(message.event_type, data, now()), now());
  }
  return settled.length;
}

/** The event's data now that its transaction is mined; null when it moved nothing the event tells of. */
async function minedEventData(deps: { chains: Pick<ChainRegistry, 'get'> }, message: SettledHeldMessage): Promise<Record<string, unknown> | null> {
  const { data } = JSON.parse(message.payload) as { data: Record<string, unknown> };
  const txHash = message.tx_hash as Hex;
  if (message.event_type !== 'escrow.created' && message.event_type !== 'escrow.cancelled') return { ...data, tx_hash: txHash };
  const moved = await escrowedTokenIds(deps, {
    chain: message.chain,
    txHash,
    escrow: message.to_address ?? '',
    contract: String(data.contract_address),
    eventName: message.event_type === 'escrow.created' ? 'Deposited' : 'Canceled',
  });
  if (message.event_type === 'escrow.created') {
    const cards = (data.cards as Array<{ card_id: number }>).filter((card) => moved.has(card.card_id));
    return cards.length === 0 ? null : { ...data, cards, tx_hash: txHash };
  }
  const cardIds = (data.card_ids as number[]).filter((cardId) => moved.has(cardId));
  return cardIds.length === 0 ? null : { ...data, card_ids: cardIds, tx_hash: txHash };
}
