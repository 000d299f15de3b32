import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { sha256Hex } from '../../custody/passwords.ts';
import { buildUser } from '../../testing/factories.ts';
import { startTestChain, type TestChain } from '../../testing/chain-node.ts';
import { startService, stopService } from '../../testing/service-process.ts';
import { createSharedInstallation, type SharedInstallation } from '../../testing/shared-installation.ts';

// The watcher's own poll is set far beyond the test's bound: only PostgreSQL's NOTIFY can wake the
// long-poll in time.
const POLL_INTERVAL_MS = 60_000;
const WAIT_SECONDS = 20;

let chain: TestChain;
let installation: SharedInstallation;
const services: ChildProcess[] = [];

before(async () => {
  if (!process.env.TEST_DATABASE_URL) return;
  chain = await startTestChain();
  installation = await createSharedInstallation({
    rpcUrl: chain.rpcUrl,
    chainId: chain.chainId,
    store: 'postgres',
    configFile: { a2a: { resultPollIntervalMs: POLL_INTERVAL_MS } },
  });
});
after(async () => {
  for (const service of services) await stopService(service);
  await installation?.remove();
  await chain?.stop();
});

async function json(response: Promise<Response>): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await response;
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

const post = (url: string, body?: unknown, auth?: string) =>
  json(
    fetch(url, {
      method: 'POST',
      headers: { ...(auth ? { authorization: auth } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
  );

test(
  'a result long-poll on one instance answers as soon as another instance completes the request (PostgreSQL NOTIFY)',
  { timeout: 120_000, skip: process.env.TEST_DATABASE_URL ? false : 'needs TEST_DATABASE_URL' },
  async () => {
    const setup = await installation.open();
    const member = await buildUser(setup);
    await setup.close();
    const [first, second] = await Promise.all([startService(installation.env), startService(installation.env)]);
    services.push(first.service, second.service);

    const session = await post(`${second.baseUrl}/v2/wallet-app/sessions`, { email: member.user.email, password: sha256Hex(member.password) });
    assert.equal(session.status, 200, JSON.stringify(session.body));
    const auth = `Bearer ${session.body.session_token as string}`;

    for (const type of ['auth', 'sign_message'] as const) {
      const prepared = await post(`${first.baseUrl}/v2/a2a/prepare`, {
        bapp: { name: 'Two instances' },
        type,
        ...(type === 'sign_message' ? { message: { value: 'hello from instance 1' } } : {}),
      });
      assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
      const key = prepared.body.request_key as string;
      const opened = await post(`${second.baseUrl}/v2/wallet-app/a2a/requests/${key}/open`, undefined, auth);
      assert.equal(opened.status, 200);

      const started = Date.now();
      const poll = json(fetch(`${first.baseUrl}/v2/a2a/result?request_key=${key}&wait=${WAIT_SECONDS}`)).then((answer) => ({ ...answer, ms: Date.now() - started }));
      // The poll is waiting on instance 1 before instance 2 approves.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const approved = await post(`${second.baseUrl}/v2/wallet-app/a2a/requests/${key}/approve`, { pin: member.pinHash }, auth);
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      assert.equal(approved.body.status, 'completed');

      const answer = await poll;
      assert.equal(answer.status, 200);
      assert.equal(answer.body.status, 'completed', `${type}: ${JSON.stringify(answer.body)}`);
      assert.deepEqual(answer.body.result, approved.body.result);
      assert.ok(answer.ms < 5_000, `${type}: the long-poll answered after ${answer.ms} ms (its wait was ${WAIT_SECONDS} s)`);
    }
  },
);
