import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { buildApp, type App } from '../../app.ts';
import type { Services } from '../../services.ts';
import { heldRead } from '../../testing/held-read.ts';
import { createTestInstallation, type TestInstallation } from '../../testing/test-services.ts';
import { BAPP, openAs, prepareKey, result, signedInMember } from '../testing/support.ts';

/**
 * A long-poll woken by one change re-reads the request; a second change announced while that read
 * is under way must wake its next wait. The read is held open here (a plugin on the app's store
 * handle) while the second change is committed and announced, so the order is certain, not left
 * to timing. PostgreSQL: changes reach a long-poll by NOTIFY. The watcher's own poll is set far
 * beyond the test's bound, so only the announcements can answer in time.
 */
const POLL_INTERVAL_MS = 600_000;
const WAIT_SECONDS = 30;

const onPostgres = process.env.WALLET_TEST_STORE === 'postgres';
let installation: TestInstallation;
let services: Services;
let app: App;

/** The read of a request's result (the query of B3), held open while the second change is made. */
const resultRead = heldRead((row) => 'outbox_tx_hash' in row);

before(async () => {
  if (!onPostgres) return;
  installation = await createTestInstallation({ a2a: { resultPollIntervalMs: POLL_INTERVAL_MS } });
  services = await installation.open();
  app = await buildApp({ services: { ...services, store: { ...services.store, db: services.store.db.withPlugin(resultRead.plugin) } } });
  await app.ready();
});
after(async () => {
  await app?.close();
  await services?.close();
  await installation?.remove();
});

test(
  'a change announced while a woken long-poll re-reads its request wakes the next wait (PostgreSQL NOTIFY)',
  { timeout: 120_000, skip: onPostgres ? false : 'PostgreSQL only' },
  async () => {
    const member = await signedInMember(app, services);
    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    assert.equal((await openAs(app, member.token, key)).statusCode, 200);
    // The listener is connected once the app holds an answer (HeldResults needs a current feed).
    for (let attempt = 0; !app.heldResults.has(key); attempt++) {
      assert.ok(attempt < 100, 'the listener never connected');
      await result(app, key);
      await sleep(50);
    }

    const poll = result(app, key, WAIT_SECONDS);
    // The long-poll has read `requested` and waits.
    await sleep(300);
    const held = resultRead.arm();
    // First change: announced, wakes the long-poll, which re-reads; nothing the BApp sees changed.
    await sql`update a2a_requests set version = version + 1 where request_key = ${key}`.execute(services.store.db);
    assert.equal((await held).status, 'requested', 'the woken read saw the request before the second change');
    // Second change, committed and announced while that read is held open.
    await sql`update a2a_requests set status = 'canceled', finished_at = updated_at, version = version + 1 where request_key = ${key}`.execute(services.store.db);
    // NOTIFY arrives within milliseconds; were it later, it would find the wait and prove nothing.
    await sleep(500);
    resultRead.release();

    const answered = await Promise.race([poll.then((response) => response.json()), sleep((WAIT_SECONDS * 1000) / 3).then(() => 'still waiting')]);
    assert.notEqual(answered, 'still waiting', 'the second announcement was lost: the long-poll waited on');
    assert.equal((answered as { status: string }).status, 'canceled');
  },
);
