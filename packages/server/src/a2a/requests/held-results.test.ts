import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { pino } from 'pino';
import { buildApp, type App } from '../../app.ts';
import { openServices, type Services } from '../../services.ts';
import { LISTENER_NAME } from '../../store/database.ts';
import { createTestInstallation, type TestInstallation } from '../../testing/test-services.ts';
import { approveAs, BAPP, openAs, prepareKey, result, signedInMember } from '../testing/support.ts';
import { openRequest, cancelRequestAsMember } from '../approval/commands.ts';
import { HeldResults, type ChangeFeed } from './held-results.ts';
import type { ResultAnswer } from './commands.ts';
import { findOutboxState } from './store.ts';

const open = (key: string, until: number): ResultAnswer => ({
  httpStatus: 200,
  body: { request_key: key, expiration_time: until, status: 'prepared' },
  terminal: false,
  presented: '200|prepared',
  marker: '1||',
  expiresAt: until,
  readableUntil: null,
});

/** A change feed whose position the test moves. */
function feed(position: number | null = 1): ChangeFeed & { at: number | null } {
  const state = {
    at: position,
    position: () => state.at,
    current: () => state.at,
  };
  return state;
}

describe('held B3 answers (HeldResults)', () => {
  const key = (n: number) => `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`;

  test('an answer is served until its request expires, then no more', () => {
    const held = new HeldResults(feed());
    held.hold(key(1), held.ticket(), open(key(1), 1_000), '{}');
    assert.ok(held.find(key(1), 999));
    assert.equal(held.find(key(1), 1_000), undefined, 'at expiration_time the answer is 6001, not the held one');
    assert.equal(held.has(key(1)), false);
  });

  test('the least recently polled answer goes first past the capacity', () => {
    const held = new HeldResults(feed(), 2);
    for (const n of [1, 2]) held.hold(key(n), held.ticket(), open(key(n), 1_000), '{}');
    assert.ok(held.find(key(1), 0));
    held.hold(key(3), held.ticket(), open(key(3), 1_000), '{}');
    assert.equal(held.size, 2);
    assert.deepEqual([held.has(key(1)), held.has(key(2)), held.has(key(3))], [true, false, true]);
  });

  test('an announcement during a load keeps its answer from being held; one after drops it', () => {
    const held = new HeldResults(feed());
    const ticket = held.ticket();
    held.changed(key(1));
    held.hold(key(1), ticket, open(key(1), 1_000), '{}');
    assert.equal(held.has(key(1)), false);
    held.hold(key(1), held.ticket(), open(key(1), 1_000), '{}');
    held.changed(key(1));
    assert.equal(held.find(key(1), 0), undefined);
  });

  test('nothing is held without a current feed, and a moved feed (another connection, a gap) serves nothing held before', () => {
    const changes = feed(null);
    const held = new HeldResults(changes);
    held.hold(key(1), held.ticket(), open(key(1), 1_000), '{}');
    assert.equal(held.size, 0);
    changes.at = 1;
    held.hold(key(1), held.ticket(), open(key(1), 1_000), '{}');
    changes.at = 2;
    assert.equal(held.find(key(1), 0), undefined);
    held.hold(key(1), held.ticket(), open(key(1), 1_000), '{}');
    changes.at = null;
    assert.equal(held.find(key(1), 0), undefined);
    assert.equal(held.size, 0, 'a feed that stopped drops everything');
  });

  test('unknown keys are not held', () => {
    const held = new HeldResults(feed());
    held.hold(key(1), held.ticket(), { ...open(key(1), 1_000), httpStatus: 400, marker: null, expiresAt: null }, '{}');
    assert.equal(held.size, 0);
  });
});

/**
 * Two service instances on one store (SQLite file, or PostgreSQL with WALLET_TEST_STORE=postgres),
 * each with its app: a change through either is seen on the next poll of both.
 */
describe('held B3 answers on two instances', () => {
  let installation: TestInstallation;
  let first: Services;
  let second: Services;
  let app: App;
  let secondApp: App;

  before(async () => {
    installation = await createTestInstallation();
    first = await installation.open();
    const schema = installation.postgresSchema ? { postgresSchema: installation.postgresSchema } : {};
    second = await openServices(installation.config, { chainMode: 'attach', log: pino({ level: 'silent' }), ...schema });
    app = await buildApp({ services: first });
    secondApp = await buildApp({ services: second });
    await app.ready();
    await secondApp.ready();
  });
  after(async () => {
    await secondApp?.close();
    await app?.close();
    await second?.close();
    await first?.close();
    await installation?.remove();
  });

  /** Polls until the app holds the key's answer: the feed may still be connecting. */
  async function pollUntilHeld(on: App, key: string): Promise<Record<string, unknown>> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const body = (await result(on, key)).json();
      if (on.heldResults.has(key)) return body;
      await sleep(50);
    }
    throw new Error(`${key} was never held`);
  }

  test('a change made in this process is seen on the next poll (the API, and a write of its own store)', async () => {
    const member = await signedInMember(app, first);
    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    assert.equal((await pollUntilHeld(app, key)).status, 'prepared');
    assert.equal((await openAs(app, member.token, key)).statusCode, 200);
    assert.equal((await result(app, key)).json().status, 'requested');
    await pollUntilHeld(app, key);
    // No command: a write straight to the store is announced all the same (triggers).
    await sql`update a2a_requests set status = 'canceled', finished_at = updated_at where request_key = ${key}`.execute(first.store.db);
    assert.equal((await result(app, key)).json().status, 'canceled');
  });

  test('a change made by another instance is seen on the next poll of this one', async () => {
    const member = await signedInMember(app, first);
    for (const change of ['open', 'cancel'] as const) {
      const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
      await pollUntilHeld(app, key);
      await pollUntilHeld(secondApp, key);
      await openRequest(second, { requestKey: key, userId: member.user.id });
      if (change === 'cancel') await cancelRequestAsMember(second, { requestKey: key, userId: member.user.id });
      const expected = change === 'open' ? 'requested' : 'canceled';
      assert.equal((await result(app, key)).json().status, expected);
      assert.equal((await result(secondApp, key)).json().status, expected);
    }
  });

  test("a transaction's receipt, recorded by the outbox, is seen on the next poll", async () => {
    const member = await signedInMember(app, first, { coins: '1' });
    const chain = first.chains.get('main').client;
    const key = await prepareKey(app, { bapp: BAPP, type: 'send_coin', transaction: { to: '0x000000000000000000000000000000000000dEaD', amount: '0.0001' } });
    await chain.request({ method: 'evm_setAutomine' as never, params: [false] as never });
    try {
      assert.equal((await approveAs(app, member.token, key, member.pin)).statusCode, 200);
      const pending = await pollUntilHeld(app, key);
      assert.deepEqual([pending.status, (pending.result as { status: string }).status], ['completed', 'pending']);
      await pollUntilHeld(secondApp, key);
      await chain.request({ method: 'evm_mine' as never, params: [] as never });
    } finally {
      await chain.request({ method: 'evm_setAutomine' as never, params: [true] as never });
    }
    for (let attempt = 0; (await findOutboxState(first.store.db, key))?.status !== 'mined'; attempt++) {
      assert.ok(attempt < 400, 'the outbox never recorded the receipt');
      await sleep(25);
    }
    assert.equal((await result(app, key)).json().result.status, 'success');
    assert.equal((await result(secondApp, key)).json().result.status, 'success');
  });

  test('held polls answered ahead of Fastify send what Fastify sends', async () => {
    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };
    const poll = async () => {
      const response = await fetch(`http://127.0.0.1:${port}/v2/a2a/result?request_key=${key}`, { headers: { origin: 'https://bapp.example' } });
      const headers = Object.fromEntries([...response.headers].filter(([name]) => name !== 'date' && name !== 'x-request-id'));
      return { status: response.status, headers, id: response.headers.get('x-request-id'), body: await response.text() };
    };
    const byFastify = await poll();
    assert.ok(app.heldResults.has(key));
    const held = await poll();
    assert.deepEqual({ ...held, id: null }, { ...byFastify, id: null });
    assert.match(held.id ?? '', /^[0-9a-f-]{36}$/);
    assert.notEqual(held.id, byFastify.id);
    const metrics = await first.metrics.registry.metrics();
    assert.match(metrics, /wallet_http_requests_total\{method="GET",route="\/v2\/a2a\/result",status="200"\} \d+/);
  });

  test(
    'PostgreSQL: a dropped listener never leaves a stale answer, and answers are held again once it is back',
    { skip: process.env.WALLET_TEST_STORE === 'postgres' ? false : 'PostgreSQL only' },
    async () => {
      const member = await signedInMember(app, first);
      const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
      await pollUntilHeld(app, key);
      // Ends the listening connections of both instances of this schema.
      const ended = await sql<{ ended: boolean }>`
        select pg_terminate_backend(pid) as ended from pg_stat_activity
        where application_name = ${`${LISTENER_NAME} ${installation.postgresSchema}`}`.execute(first.store.db);
      assert.ok(ended.rows.length >= 1);
      await openRequest(second, { requestKey: key, userId: member.user.id });
      assert.equal((await result(app, key)).json().status, 'requested');
      assert.equal((await pollUntilHeld(app, key)).status, 'requested', 'held again on the new connection');
      await cancelRequestAsMember(second, { requestKey: key, userId: member.user.id });
      assert.equal((await result(app, key)).json().status, 'canceled');
    },
  );
});
