import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { KeyedQueue } from './keyed-queue.ts';

test('tasks under one key run one at a time, in the order they came', async () => {
  const queue = new KeyedQueue();
  const events: string[] = [];
  const task = (name: string, ms: number) => async () => {
    events.push(`start ${name}`);
    await sleep(ms);
    events.push(`end ${name}`);
    return name;
  };
  const results = await Promise.all([queue.run('k', task('a', 20)), queue.run('k', task('b', 1)), queue.run('k', task('c', 5))]);
  assert.deepEqual(results, ['a', 'b', 'c']);
  assert.deepEqual(events, ['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  assert.equal(queue.size, 0);
});

test('tasks under different keys run side by side', async () => {
  const queue = new KeyedQueue();
  let running = 0;
  let most = 0;
  const task = async () => {
    running += 1;
    most = Math.max(most, running);
    await sleep(10);
    running -= 1;
  };
  await Promise.all([queue.run('a', task), queue.run('b', task), queue.run('c', task)]);
  assert.equal(most, 3);
});

test('a failing task passes its error to its caller and does not stop the next one', async () => {
  const queue = new KeyedQueue();
  const failing = queue.run('k', async () => {
    await sleep(5);
    throw new Error('boom');
  });
  const next = queue.run('k', async () => 'ran');
  await assert.rejects(failing, /boom/);
  assert.equal(await next, 'ran');
  assert.equal(queue.size, 0);
});
