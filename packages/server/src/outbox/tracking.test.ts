import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChainContext } from '../chain/chains.ts';
import type { OutboxRow } from '../store/schema.ts';
import { PendingTracker, type PendingTrackerOptions } from './tracking.ts';

/** An unmined row as the tracker reads it: stored at `created`, never broadcast since. */
function row(id: string, from: string, nonce: number, created: number): OutboxRow {
  return { id, chain: 'main', from_address: from, nonce, created_ms: created, last_broadcast_ms: null, tx_hash: `0x${id}` } as unknown as OutboxRow;
}

test('transactions to send again go in the order they were stored, across accounts, one after another', async () => {
  const operator = '0xbb00000000000000000000000000000000000000';
  const member = '0xaa00000000000000000000000000000000000000';
  // A node restarted from an older state lost all three: the operator's claim of a card, the
  // member's send of that card (stored once the claim was mined), and a later operator transaction.
  const rows = [row('claim', operator, 7, 1_000), row('send', member, 3, 2_000), row('later', operator, 8, 3_000)];
  const events: string[] = [];
  const tracker = trackerOf(rows, events, { broadcastMs: 0, rebroadcastAfterMs: 2_000 });
  await tracker.trackPending();
  assert.deepEqual(events, ['send claim', 'sent claim', 'send send', 'sent send', 'send later', 'sent later']);
});

test('a pass sends for rebroadcastAfterMs at most: a node that hangs does not hold it a timeout per transaction', async () => {
  const rows = [row('first', '0xbb00000000000000000000000000000000000000', 1, 1_000), row('second', '0xbb00000000000000000000000000000000000000', 2, 2_000)];
  const events: string[] = [];
  await trackerOf(rows, events, { broadcastMs: 50, rebroadcastAfterMs: 20 }).trackPending();
  assert.deepEqual(events, ['send first', 'sent first'], 'the second waits for the next pass');
});

test('a transaction sent moments ago holds back the later ones of its chain: after a rewind they go again together, in order', async () => {
  const operator = '0xbb00000000000000000000000000000000000000';
  const member = '0xaa00000000000000000000000000000000000000';
  // The deposit was sent to the node a moment before it died and came back without it; the claim
  // that needs it was lost with the rewind and is due. Sent alone, the claim would revert.
  const deposit = row('deposit', operator, 7, 1_000);
  const claim = row('claim', member, 3, 2_000);
  const elsewhere = { ...row('elsewhere', member, 9, 3_000), chain: 'other' } as OutboxRow;
  const events: string[] = [];
  const sentAt = new Map([['deposit', Date.now() - 100]]);
  const tracker = trackerOf([deposit, claim, elsewhere], events, { broadcastMs: 0, rebroadcastAfterMs: 2_000 }, sentAt);
  await tracker.trackPending();
  assert.deepEqual(events, ['send elsewhere', 'sent elsewhere'], 'the claim waits for the deposit; another chain does not');
  // So does one whose last send failed (the node was down): it never reached a node.
  events.length = 0;
  await trackerOf([{ ...deposit, last_broadcast_ms: Date.now() - 100 } as OutboxRow, claim], events, { broadcastMs: 0, rebroadcastAfterMs: 2_000 }, new Map()).trackPending();
  assert.deepEqual(events, []);
  sentAt.set('deposit', Date.now() - 3_000);
  events.length = 0;
  await tracker.trackPending();
  assert.deepEqual(events, ['send deposit', 'sent deposit', 'send claim', 'sent claim', 'send elsewhere', 'sent elsewhere']);
});

test('nothing is sent to a chain whose node may have lost blocks until it is checked; other chains go on', async () => {
  const member = '0xaa00000000000000000000000000000000000000';
  const rows = [row('transfer', member, 3, 1_000), { ...row('elsewhere', member, 9, 2_000), chain: 'other' } as OutboxRow];
  const events: string[] = [];
  const unstuck: string[] = [];
  const checked = new Set(['other']);
  const tracker = trackerOf(rows, events, { broadcastMs: 0, rebroadcastAfterMs: 2_000 }, new Map(), {
    maySend: (chain) => checked.has(chain.name),
    unstick: async (unmined) => void unstuck.push(...unmined.map((held) => held.id)),
  });
  await tracker.trackPending();
  assert.deepEqual(events, ['send elsewhere', 'sent elsewhere']);
  assert.deepEqual(unstuck, ['elsewhere'], 'the unchecked chain is not unstuck either');
  checked.add('main');
  events.length = 0;
  await tracker.trackPending();
  assert.deepEqual(events, ['send transfer', 'sent transfer', 'send elsewhere', 'sent elsewhere']);
});

test("a row waiting for room in its account's window is the broadcaster's and holds nothing back; one this process never sent, past the window, holds back the chain's other accounts", async () => {
  const operator = '0xbb00000000000000000000000000000000000000';
  const member = '0xaa00000000000000000000000000000000000000';
  // After a restart: the operator's nonces 7 and 8 are stored, unsent here, and the node counts 7
  // mined; a window of one lets 7 go, not 8, and the member's later row waits behind 8 (it may
  // depend on it). The member's nonce 4 waits for room in this process: it goes from the broadcaster.
  const rows = [row('op-7', operator, 7, 1_000), row('op-8', operator, 8, 2_000), row('member-3', member, 3, 3_000), row('member-4', member, 4, 4_000)];
  const events: string[] = [];
  const counts: string[] = [];
  const unstuck: string[] = [];
  const tracker = trackerOf(rows, events, { broadcastMs: 0, rebroadcastAfterMs: 2_000 }, new Map(), {
    unstick: async (unmined) => void unstuck.push(...unmined.map((held) => held.id)),
    broadcaster: {
      isWaiting: (id) => id === 'member-4',
      mayGoNow: (pending, minedCount) => pending.nonce < (minedCount ?? 0) + 1,
      minedCount: (account, count) => void counts.push(`${account} ${count}`),
      waitingAccounts: () => [rows[3]!],
    },
    minedCounts: { [operator]: 7, [member]: 3 },
  });
  await tracker.trackPending();
  assert.deepEqual(events, ['send op-7', 'sent op-7']);
  assert.deepEqual(counts.sort(), [`main:${member} 3`, `main:${operator} 7`]);
  assert.deepEqual(unstuck, ['op-7', 'op-8', 'member-3'], 'a waiting row is not taken for stuck');
});

test("an account's rows stored with times out of nonce order go in nonce order: a higher nonce past the window holds back none of its own", async () => {
  const member = '0xaa00000000000000000000000000000000000000';
  // Nonces 6 and 7 were signed before 3, 4 and 5, which were signed again in their commit.
  const rows = [row('n6', member, 6, 1_000), row('n7', member, 7, 1_100), row('n3', member, 3, 1_200), row('n4', member, 4, 1_300), row('n5', member, 5, 1_400)];
  const events: string[] = [];
  await trackerOf(rows, events, { broadcastMs: 0, rebroadcastAfterMs: 2_000 }, new Map(), {
    broadcaster: { mayGoNow: (pending, minedCount) => pending.nonce < (minedCount ?? 0) + 4 },
    minedCounts: { [member]: 3 },
  }).trackPending();
  assert.deepEqual(events.filter((event) => event.startsWith('send ')), ['send n3', 'send n4', 'send n5', 'send n6']);
});

test("a full batch that leaves out an account's lower nonces, signed again later, reads them: its higher nonces past the window do not wait on them for good", async () => {
  const operator = '0xbb00000000000000000000000000000000000000';
  const member = '0xaa00000000000000000000000000000000000000';
  // The 500 oldest unmined rows: the operator's 498 on another chain and the member's nonces 6 and
  // 7. The member's 3 to 5 were signed again in their commit, later than all of them, and the node
  // counts 3 mined.
  const batch = [
    ...Array.from({ length: 498 }, (_, index) => ({ ...row(`op-${index}`, operator, index, 1_000 + index), chain: 'other' }) as OutboxRow),
    row('n6', member, 6, 2_000),
    row('n7', member, 7, 2_001),
  ];
  const leftOut = [row('n3', member, 3, 3_000), row('n4', member, 4, 3_001), row('n5', member, 5, 3_002)];
  const asked: string[] = [];
  const events: string[] = [];
  const options = {
    broadcaster: { mayGoNow: (pending: OutboxRow, minedCount: number | undefined) => pending.nonce < (minedCount ?? 0) + 2 },
    minedCounts: { [member]: 3 },
    store: {
      unminedBetween: async (account: Pick<OutboxRow, 'from_address'>, from: number, below: number) => {
        asked.push(`${account.from_address} ${from}..${below}`);
        return leftOut.filter((left) => left.from_address === account.from_address && left.nonce >= from && left.nonce < below);
      },
    },
  };
  await trackerOf(batch, events, { broadcastMs: 0, rebroadcastAfterMs: 2_000 }, new Map(), options).trackPending();
  assert.deepEqual(asked, [`${member} 3..6`], "only the account whose batch rows start above the node's count");
  assert.deepEqual(events.filter((event) => event.startsWith('send n')), ['send n3', 'send n4'], 'the window of 2 from the count of 3');
  // A batch that is not full holds every unmined row: nothing is read besides.
  asked.length = 0;
  await trackerOf(batch.slice(1), [], { broadcastMs: 0, rebroadcastAfterMs: 2_000 }, new Map(), options).trackPending();
  assert.deepEqual(asked, []);
});

function trackerOf(
  rows: OutboxRow[],
  events: string[],
  timing: { broadcastMs: number; rebroadcastAfterMs: number },
  sentAt = new Map<string, number>(),
  hooks: Partial<Pick<PendingTrackerOptions, 'maySend' | 'unstick'>> & {
    broadcaster?: Partial<Pick<PendingTrackerOptions['broadcaster'], 'isWaiting' | 'mayGoNow' | 'minedCount' | 'waitingAccounts'>>;
    /** The node's mined nonce count per account (0 when not given). */
    minedCounts?: Record<string, number>;
    store?: Partial<PendingTrackerOptions['store']>;
  } = {},
): PendingTracker {
  const chainOf = (name: string) =>
    ({
      name,
      automine: true,
      client: { getTransactionCount: async ({ address }: { address: string }) => hooks.minedCounts?.[address] ?? 0 },
    }) as unknown as ChainContext;
  return new PendingTracker({
    chains: { get: chainOf, has: () => true },
    store: {
      unmined: async () => rows,
      unminedBetween: async () => assert.fail('the batch holds every unmined row'),
      ...hooks.store,
    },
    recorder: { recordReceipts: async () => {} },
    broadcaster: {
      broadcast: async (sent) => {
        events.push(`send ${sent.id}`);
        await new Promise((resolve) => setTimeout(resolve, timing.broadcastMs));
        events.push(`sent ${sent.id}`);
      },
      lastSentAt: (id) => sentAt.get(id),
      isWaiting: () => false,
      mayGoNow: () => true,
      minedCount: () => {},
      waitingAccounts: () => [],
      ...hooks.broadcaster,
    },
    maySend: hooks.maySend ?? (() => true),
    unstick: hooks.unstick ?? (async () => {}),
    isAwaited: () => false,
    kick: () => {},
    rebroadcastAfterMs: timing.rebroadcastAfterMs,
  });
}
