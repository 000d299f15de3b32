import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { parseEther, type Address } from 'viem';
import { buildApp, type App } from '../../app.ts';
import { openServices, type Services } from '../../services.ts';
import { withBackgroundJobs } from '../../background-jobs.ts';
import { epochSeconds } from '../../store/database.ts';
import { openTestApp, type TestApp, type TestServices } from '../../testing/test-services.ts';
import { pino } from 'pino';
import { claimExecution, completeRequest, EXECUTION_GRACE_SECONDS, purgeRequests } from './store.ts';
import { approveAs, BAPP, cancelAs, finalResult, openAs, prepareKey, result, signedInMember } from '../testing/support.ts';
import { withoutMessage } from '../../testing/responses.ts';

const recipient = '0x5000000000000000000000000000000000000005' as Address;
const keyedError = (requestKey: string, expirationTime: number, code: number, err: string, message = err) => ({
  request_key: requestKey,
  expiration_time: expirationTime,
  status: 'error',
  error: { code, err, message },
});

/** B3 states, expiry and retention, cancel, long-polls, and one execution per key under races. */
describe('App2App request lifecycle', () => {
  let testApp: TestApp;
  let services: TestServices;
  let app: App;

  before(async () => {
    testApp = await openTestApp();
    ({ services, app } = testApp);
  });
  after(() => testApp?.cleanup());

  test('6000 for a key that does not exist or is not a key at all', async () => {
    for (const key of ['00000000-0000-0000-0000-000000000000', 'not-a-key', '']) {
      const response = await result(app, key);
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), { code: 6000, err: 'request key does not exist' });
    }
    const missing = await app.inject({ method: 'GET', url: '/v2/a2a/result' });
    assert.deepEqual([missing.statusCode, withoutMessage(missing.json())], [400, { code: 400, err: 'bad request' }]);
    assert.match(missing.json().message, /request_key/);
  });

  test('prepared → requested → canceled; a canceled request cannot be approved or canceled again (6011)', async () => {
    const member = await signedInMember(app, services);
    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    const prepared = (await result(app, key)).json();
    assert.deepEqual(prepared, { request_key: key, expiration_time: prepared.expiration_time, status: 'prepared' });
    assert.equal((await openAs(app, member.token, key)).json().status, 'requested');
    assert.equal((await openAs(app, member.token, key)).statusCode, 200, 'opening again is harmless');
    const canceled = await cancelAs(app, member.token, key);
    assert.equal(canceled.statusCode, 200);
    assert.deepEqual(canceled.json(), { request_key: key, expiration_time: prepared.expiration_time, status: 'canceled' });
    assert.deepEqual((await result(app, key)).json(), canceled.json());
    const approve = await approveAs(app, member.token, key, member.pin);
    assert.deepEqual([approve.statusCode, approve.json()], [400, { code: 6011, err: 'invalid request status', message: 'the request is canceled' }]);
    assert.equal((await cancelAs(app, member.token, key)).json().code, 6011);
    assert.equal((await openAs(app, member.token, key)).json().code, 6011);
  });

  test('a wrong PIN changes nothing (4006); the right one then approves', async () => {
    const member = await signedInMember(app, services);
    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    await openAs(app, member.token, key);
    const wrong = await approveAs(app, member.token, key, '000000');
    assert.deepEqual([wrong.statusCode, wrong.json()], [401, { code: 4006, err: 'invalid pin code' }]);
    assert.equal((await result(app, key)).json().status, 'requested');
    const right = await approveAs(app, member.token, key, member.pin);
    assert.equal(right.statusCode, 200);
    assert.equal(right.json().status, 'completed');
    const again = await approveAs(app, member.token, key, member.pin);
    assert.deepEqual(again.json(), { code: 6011, err: 'invalid request status', message: 'the request is completed' });
  });

  test('a failed execution is the error state with the keyed body (from differs from the member: 6411)', async () => {
    const member = await signedInMember(app, services);
    const other = '0x6000000000000000000000000000000000000006';
    const key = await prepareKey(app, { bapp: BAPP, type: 'sign_message', message: { value: 'hi', from: other } });
    const expiration = (await result(app, key)).json().expiration_time;
    const approved = await approveAs(app, member.token, key, member.pin);
    const body = keyedError(key, expiration, 6411, 'invalid from address', `the request is from ${other}; the member's address is ${member.address}`);
    assert.deepEqual([approved.statusCode, approved.json()], [400, body]);
    assert.deepEqual([(await result(app, key)).statusCode, (await result(app, key)).json()], [400, body]);
  });

  test('long-poll: answers as soon as the wallet app opens, then as soon as the member approves', async () => {
    const member = await signedInMember(app, services);
    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });

    let started = Date.now();
    const firstPoll = result(app, key, 20);
    await sleep(300);
    let changedAt = Date.now();
    await openAs(app, member.token, key);
    const first = await firstPoll;
    assert.equal(first.json().status, 'requested');
    assert.ok(Date.now() - changedAt < 1_000, `answered ${Date.now() - changedAt} ms after the change`);
    assert.ok(Date.now() - started >= 300);

    const secondPoll = result(app, key, 20);
    await sleep(200);
    changedAt = Date.now();
    const approved = await approveAs(app, member.token, key, member.pin);
    const second = await secondPoll;
    assert.deepEqual(second.json(), approved.json());
    assert.ok(Date.now() - changedAt < 3_000);

    started = Date.now();
    assert.equal((await result(app, key, 20)).json().status, 'completed', 'a finished request answers at once');
    assert.ok(Date.now() - started < 1_000);
  });

  test('long-poll: sees a change made by another process through the store, and times out unchanged', async () => {
    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    let started = Date.now();
    const unchanged = await result(app, key, 1);
    assert.equal(unchanged.json().status, 'prepared');
    assert.ok(Date.now() - started >= 1_000 && Date.now() - started < 3_000);

    const poll = result(app, key, 20);
    await sleep(200);
    // What another service process does: a conditional UPDATE, no in-process notification.
    await services.store.db
      .updateTable('a2a_requests')
      .set((eb) => ({ status: 'canceled', finished_at: epochSeconds(), version: eb('version', '+', 1) }))
      .where('request_key', '=', key)
      .execute();
    started = Date.now();
    assert.equal((await poll).json().status, 'canceled');
    assert.ok(Date.now() - started < services.config.a2a.resultPollIntervalMs + 1_500);
  });

  test('long-poll: wait is a whole number of seconds up to 30', async () => {
    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    for (const wait of ['31', '-1', '1.5', 'soon']) {
      const response = await app.inject({ method: 'GET', url: `/v2/a2a/result?request_key=${key}&wait=${wait}` });
      assert.deepEqual([response.statusCode, withoutMessage(response.json())], [400, { code: 400, err: 'bad request' }]);
      assert.match(response.json().message, /wait/);
    }
  });

  test('long-poll: follows a transaction from pending to success', async () => {
    const member = await signedInMember(app, services, { coins: '1' });
    const key = await prepareKey(app, { bapp: BAPP, type: 'send_coin', transaction: { to: recipient, amount: '0.1' } });
    const approved = await approveAs(app, member.token, key, member.pin);
    assert.equal(approved.statusCode, 200);
    const final = await finalResult(app, key);
    assert.equal(final.result.status, 'success');
  });

  test('two approvals at once, in two service processes sharing the store: exactly one executes', async () => {
    const member = await signedInMember(app, services, { coins: '5' });
    const second = await openSecondProcess(services);
    const secondApp = await buildApp({ services: second });
    try {
      for (let round = 0; round < 3; round++) {
        const key = await prepareKey(app, { bapp: BAPP, type: 'send_coin', transaction: { to: recipient, amount: '1' } });
        const before = await services.chains.get('main').client.getBalance({ address: recipient });
        const answers = await Promise.all([
          approveAs(app, member.token, key, member.pin),
          approveAs(secondApp, member.token, key, member.pin),
          approveAs(app, member.token, key, member.pin),
        ]);
        const statuses = answers.map((answer) => answer.statusCode).sort();
        assert.deepEqual(statuses, [200, 400, 400], answers.map((answer) => answer.body).join('\n'));
        for (const answer of answers.filter((answer) => answer.statusCode === 400)) assert.equal(answer.json().code, 6011);
        const rows = await services.store.db.selectFrom('outbox_transactions').select('id').where('idempotency_key', '=', key).execute();
        assert.equal(rows.length, 1);
        assert.equal((await finalResult(app, key)).result.status, 'success');
        assert.equal(await services.chains.get('main').client.getBalance({ address: recipient }), before + parseEther('1'));
      }
    } finally {
      await secondApp.close();
      await second.close();
    }
  });
});

const LIFETIME = 3;
const RETENTION = 4;

describe('App2App request lifetime and retention (short configured times)', () => {
  let testApp: TestApp;
  let services: TestServices;
  let app: App;

  before(async () => {
    testApp = await openTestApp({ a2a: { requestLifetimeSeconds: LIFETIME, resultRetentionSeconds: RETENTION } });
    ({ services, app } = testApp);
  });
  after(() => testApp?.cleanup());

  test('a key past expiration_time that never finished answers 6001 with the keyed body, for result and approval', async () => {
    const member = await signedInMember(app, services);
    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    await openAs(app, member.token, key);
    const expiration = (await result(app, key)).json().expiration_time;
    await sleep(Math.max(0, expiration * 1000 - Date.now()) + 50);
    const body = keyedError(key, expiration, 6001, 'request key is expired');
    const expired = await result(app, key);
    assert.deepEqual([expired.statusCode, expired.json()], [400, body]);
    const approve = await approveAs(app, member.token, key, member.pin);
    assert.deepEqual([approve.statusCode, approve.json()], [400, body]);
    assert.deepEqual((await cancelAs(app, member.token, key)).json(), body);
  });

  test('an approval that claimed the key before it expired is not cut off: requested until it finishes, never 6001 and then completed', async () => {
    const member = await signedInMember(app, services);
    const db = services.store.db;
    const expireNow = (key: string, expiration: number) =>
      db.updateTable('a2a_requests').set({ expiration_time: expiration }).where('request_key', '=', key).execute();

    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    await openAs(app, member.token, key);
    const now = epochSeconds();
    // An approval claims the key in time, and the key expires while it runs.
    assert.ok(await claimExecution(db, key, 'execution-in-time', member.user.id, now));
    await expireNow(key, now - 1);
    const during = await result(app, key);
    assert.deepEqual([during.statusCode, during.json()], [200, { request_key: key, expiration_time: now - 1, status: 'requested' }]);
    assert.deepEqual(withoutMessage((await approveAs(app, member.token, key, member.pin)).json()), { code: 6011, err: 'invalid request status' });
    assert.deepEqual(withoutMessage((await cancelAs(app, member.token, key)).json()), { code: 6011, err: 'invalid request status' });
    // Other keys of this app (the test before's) may be purged; this one must not be.
    await purgeRequests(db, 0, epochSeconds());
    const kept = await db.selectFrom('a2a_requests').select('request_key').where('request_key', '=', key).executeTakeFirst();
    assert.ok(kept, 'not purged while its approval may finish');
    // It finishes: completed, as the member confirmed it.
    assert.ok(await completeRequest(db, key, 'execution-in-time', { result: { main_address: member.address } }, epochSeconds()));
    const done = await result(app, key);
    assert.deepEqual([done.statusCode, done.json().status], [200, 'completed']);

    // An approval that never finishes (its process stopped before sending) counts as expired once its grace is over.
    const stalled = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    assert.ok(await claimExecution(db, stalled, 'execution-stopped', member.user.id, epochSeconds()));
    const expiration = epochSeconds() - EXECUTION_GRACE_SECONDS;
    await expireNow(stalled, expiration);
    const expired = await result(app, stalled);
    assert.deepEqual([expired.statusCode, expired.json()], [400, keyedError(stalled, expiration, 6001, 'request key is expired')]);
  });

  test('a long-poll on an open key answers 6001 when it expires', async () => {
    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    const expiration = (await result(app, key)).json().expiration_time;
    const answer = await result(app, key, 10);
    assert.equal(answer.statusCode, 400);
    assert.equal(answer.json().error.code, 6001);
    assert.ok(Date.now() - expiration * 1000 < 1_000, 'answered when the key expired');
  });

  test('finished results stay readable for the retention period, then answer 6000', async () => {
    const member = await signedInMember(app, services);
    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    const approved = await approveAs(app, member.token, key, member.pin);
    assert.equal(approved.statusCode, 200);
    const { finished_at: finishedAt } = await services.store.db
      .selectFrom('a2a_requests')
      .select('finished_at')
      .where('request_key', '=', key)
      .executeTakeFirstOrThrow();
    const expiration = approved.json().expiration_time;
    await sleep(Math.max(0, expiration * 1000 - Date.now()) + 100);
    assert.deepEqual((await result(app, key)).json(), approved.json(), 'readable after the key expired');
    await sleep(Math.max(0, (Number(finishedAt) + RETENTION + 1) * 1000 - Date.now()) + 100);
    assert.deepEqual((await result(app, key)).json(), { code: 6000, err: 'request key does not exist' });
  });
});

/** A second service process over the same store and chain (its own pool, outbox and app). */
async function openSecondProcess(services: Services): Promise<Services> {
  const schema =
    services.store.dialect === 'postgres'
      ? ((await sql<{ schema: string }>`select current_schema() as schema`.execute(services.store.db)).rows[0]!.schema)
      : undefined;
  const second = await openServices(services.config, {
    chainMode: 'attach',
    log: pino({ level: 'silent' }),
    ...(schema ? { postgresSchema: schema } : {}),
  });
  return withBackgroundJobs(second);
}
