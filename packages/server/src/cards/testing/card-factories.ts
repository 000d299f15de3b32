/** Test data for the card tests: mint payloads and short-hands for the Family A card calls. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Address } from 'viem';
import type { App } from '../../app.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { CardIndex } from '../../card-index/index.ts';

/**
 * The card ids a mint gives `recipients` (distinct, lower-case) when they go in batches of
 * `batchSize` from `firstId`: within a batch, cards follow ascending address order.
 */
export function expectedCardIds(recipients: readonly string[], batchSize: number, firstId = 1): number[] {
  return recipients.map((recipient, i) => {
    const start = i - (i % batchSize);
    const batch = recipients.slice(start, start + batchSize);
    return firstId + start + batch.filter((other) => other < recipient).length;
  });
}

/** `n` fresh addresses nobody holds a key to (random bytes: deriving one from a key costs about 2 ms). */
export function buildAddresses(n: number): Address[] {
  return Array.from({ length: n }, () => `0x${randomBytes(20).toString('hex')}` as Address);
}

/** A valid A7 payload for a partner's contract; fields can be overridden or removed (undefined). */
export function buildMintPayload(partner: { pinHash: string; contractAddress: string }, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    pin: partner.pinHash,
    to_address: buildAddresses(1),
    contract_address: partner.contractAddress,
    name: 'Gold Member Card',
    description: 'A card for gold members',
    image: 'https://cdn.example.com/cards/gold.png',
    animation_url: 'https://cdn.example.com/cards/gold.mp4',
    background_color: '#112233',
    sendable: true,
    send_friend_only: false,
    group_name: 'Members',
    group_icon: 'https://cdn.example.com/icons/members.png',
    hashtags: ['gold', 'member'],
    layout: 'horizontal',
    external_link: 'https://example.com/gold',
    custom_links: [{ display_name: 'Shop', value: 'https://example.com/shop' }],
    qr_code: 'https://cdn.example.com/qr/gold.png',
    bar_code: 'https://cdn.example.com/bar/gold.png',
    attributes: [{ trait_type: 'tier', value: 'gold' }],
    // No status_url by default: the holder's view would fetch it (cards/holder/card-status.test.ts).
    ...overrides,
  };
  for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete payload[key];
  return payload;
}

/** A Family A call with the partner's token. */
export function partnerCall(app: App, token: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) {
  return app.inject({ method, url, headers: { authorization: token }, ...(payload ? { payload } : {}) });
}

/** A7 that must succeed; returns the answer. */
export async function mintOk(app: App, token: string, payload: object) {
  const response = await partnerCall(app, token, 'POST', '/v2/wallet/mint', payload);
  assert.equal(response.statusCode, 200, response.body);
  return response.json() as { hash: string; hashes: string[]; card_ids: Array<number | null>; minted_count: number; fail_count: number };
}

/** The path of a card_uri on this service (for app.inject). */
export function pathOf(url: string): string {
  return new URL(url).pathname;
}

/** Waits until the card index holds everything mined so far on the main chain (mints answer once mined, not indexed). */
export async function indexedToHead(deps: { chains: ChainRegistry; cardIndex: CardIndex }): Promise<void> {
  const head = await deps.chains.get('main').client.getBlockNumber({ cacheTime: 0 });
  await deps.cardIndex.waitUntilIndexed('main', head);
}
