import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChainContext } from '../chain/chains.ts';
import type { OutboxRow } from '../store/schema.ts';
import { Broadcaster } from './broadcast.ts';
import { rowAccountKey } from './submission.ts';

const ALICE = '0xaa00000000000000000000000000000000000000';
const BOB = '0xbb00000000000000000000000000000000000000';

function row(from: string, nonce: number): OutboxRow {
  return { id: `${from.slice(2, 4)}-${nonce}`, chain: 'main', from_address: from, nonce, raw_tx: `0x${from.slice(2, 4)}${nonce}` } as unknown as OutboxRow;
}

/** A broadcaster of window 3 whose node (mining blocks on its own time) records what it is sent, in the order it is sent. */
function broadcasterOf(sent: string[], automine = false): Broadcaster {
  const chain = {
    name: 'main',
    automine,
    client: { sendRawTransaction: async ({ serializedTransaction }: { serializedTransaction: string }) => void sent.push(serializedTransaction) },
  } as unknown as ChainContext;
  return new Broadcaster({
    chains: { get: () => chain },
    store: { recordBroadcastFailure: async () => {} },
    maySend: () => true,
    reconcileNonceTooLow: async () => {},
    window: 3,
  });
}

test("an account's transactions past its window wait, stored, and go in nonce order as its nonces are mined; other accounts do not wait", async () => {
  const sent: string[] = [];
  const broadcaster = broadcasterOf(sent);
  // Stored out of nonce order (two commits finishing in the other order): 4 arrives before 3.
  for (const nonce of [0, 1, 2, 4, 3, 5, 6]) broadcaster.sendNew(row(ALICE, nonce));
  broadcaster.sendNew(row(BOB, 9));
  await broadcaster.drain();
  assert.deepEqual(sent, ['0xaa0', '0xaa1', '0xaa2', '0xbb9']);
  assert.equal(broadcaster.isWaiting('aa-3'), true);
  assert.equal(broadcaster.isWaiting('aa-2'), false);
  assert.deepEqual(broadcaster.waitingAccounts().map(rowAccountKey), [`main:${ALICE}`]);
  assert.deepEqual(broadcaster.waitingByChain(), new Map([['main', 4]]));

  // A receipt makes room for one.
  broadcaster.mined(row(ALICE, 0));
  await broadcaster.drain();
  assert.deepEqual(sent.slice(4), ['0xaa3']);
  // The node counts three more mined (another process recorded their receipts): room for three.
  broadcaster.minedCount(`main:${ALICE}`, 4);
  await broadcaster.drain();
  assert.deepEqual(sent.slice(5), ['0xaa4', '0xaa5', '0xaa6']);
  assert.equal(broadcaster.isWaiting('aa-6'), false);
  assert.deepEqual(broadcaster.waitingAccounts(), []);
  assert.deepEqual(broadcaster.waitingByChain(), new Map());
  // An older count, read before a receipt, takes no room back.
  broadcaster.mined(row(ALICE, 4));
  broadcaster.minedCount(`main:${ALICE}`, 1);
  broadcaster.sendNew(row(ALICE, 7));
  await broadcaster.drain();
  assert.deepEqual(sent.slice(8), ['0xaa7']);
});

test('a pass may send a row this process never sent only inside its window; one it sent always goes again', async () => {
  const sent: string[] = [];
  const broadcaster = broadcasterOf(sent);
  // After a restart nothing is known of the account but what the node counts.
  assert.equal(broadcaster.mayGoNow(row(ALICE, 12), 10), true);
  assert.equal(broadcaster.mayGoNow(row(ALICE, 13), 10), false);
  assert.equal(broadcaster.mayGoNow(row(ALICE, 13), undefined), true, 'a node that did not answer holds nothing back');
  await broadcaster.broadcast(row(ALICE, 13));
  assert.equal(broadcaster.mayGoNow(row(ALICE, 13), 10), true, 'already in the node: sending it again adds nothing');
});

test('on an automining node every transaction goes at once: it mines each as it arrives, so its pool holds none to bound', async () => {
  const sent: string[] = [];
  const broadcaster = broadcasterOf(sent, true);
  for (const nonce of [0, 1, 2, 3, 4]) broadcaster.sendNew(row(ALICE, nonce));
  await broadcaster.drain();
  assert.deepEqual(sent, ['0xaa0', '0xaa1', '0xaa2', '0xaa3', '0xaa4']);
  assert.equal(broadcaster.mayGoNow(row(ALICE, 9), 0), true);
});
