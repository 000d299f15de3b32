import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ResultWatcher } from './watcher.ts';

const NEVER_POLLED = 3_600_000;
/** Whether `promise` settles within a few turns of the event loop. */
async function settlesSoon(promise: Promise<unknown>): Promise<boolean> {
  const pending = Symbol('pending');
  const first = await Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(pending), 20))]);
  return first !== pending;
}

test('an announcement that arrives between two waits (while the request is read) ends the next wait at once', async () => {
  const watcher = new ResultWatcher({ readMarkers: async () => new Map(), intervalMs: NEVER_POLLED });
  const watch = watcher.watch('key');
  // Announced while the long-poll reads the request (first commit), and again before it waits anew (second commit).
  watcher.notify('key');
  assert.equal(await settlesSoon(watch.next('m1', 60_000)), true, 'the first announcement was kept');
  assert.equal(await settlesSoon(watch.next('m1', 60_000)), false, 'an announcement is taken once');
  watch.close();
  watcher.close();
});

test('a wait under way ends when its key is announced; other keys leave it waiting; closing the watcher ends it', async () => {
  const watcher = new ResultWatcher({ readMarkers: async () => new Map(), intervalMs: NEVER_POLLED });
  const watch = watcher.watch('a');
  const other = watcher.watch('b');
  const waiting = watch.next('m', 60_000);
  watcher.notify('b');
  assert.equal(await settlesSoon(waiting), false);
  watcher.notify('a');
  assert.equal(await settlesSoon(waiting), true);
  // Closed: every wait ends, and new ones end at once.
  const stopping = other.next('m', 60_000);
  watcher.close();
  assert.equal(await settlesSoon(stopping), true);
  assert.equal(other.watcherClosed, true);
  assert.equal(await settlesSoon(other.next('m', 60_000)), true);
});

test('the shared poll reads only keys someone waits on, and ends a wait whose marker changed', async () => {
  const read: string[][] = [];
  const markers = new Map([['a', 'm2'], ['b', 'm1']]);
  const watcher = new ResultWatcher({
    readMarkers: async (keys) => {
      read.push(keys);
      return markers;
    },
    intervalMs: 5,
  });
  const a = watcher.watch('a');
  const b = watcher.watch('b');
  const idle = watcher.watch('c'); // watched, not waiting: not read
  const aWait = a.next('m1', 60_000);
  const bWait = b.next('m1', 60_000);
  assert.equal(await settlesSoon(aWait), true, "a's marker changed");
  assert.equal(await settlesSoon(bWait), false, "b's did not");
  assert.ok(read.length > 0);
  for (const keys of read) assert.ok(!keys.includes('c'), `read ${keys.join()}`);
  for (const watch of [a, b, idle]) watch.close();
  watcher.close();
  await bWait;
});

test('a closed watch is forgotten: announcements after it wake nothing and keep nothing', async () => {
  const watcher = new ResultWatcher({ readMarkers: async () => new Map(), intervalMs: NEVER_POLLED });
  const watch = watcher.watch('key');
  const waiting = watch.next('m', 60_000);
  watch.close();
  assert.equal(await settlesSoon(waiting), true, 'closing ends its wait');
  watcher.notify('key');
  const again = watcher.watch('key');
  assert.equal(await settlesSoon(again.next('m', 60_000)), false, 'a new watch starts with nothing announced');
  again.close();
  watcher.close();
});
