import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { parseEther, toHex, verifyMessage, type Address } from 'viem';
import { sha256Hex } from './passwords.ts';
import { buildApprovedPartner, buildUser } from '../testing/factories.ts';
import { startTestChain, type TestChain } from '../testing/chain-node.ts';
import { startService, stopService, WALLET_SERVICE_BIN } from '../testing/service-process.ts';
import { createSharedInstallation, type SharedInstallation } from '../testing/shared-installation.ts';

/**
 * `keys rotate-master` on three instances over one PostgreSQL, as docs/operations.md ("Rotating the
 * master key on several instances") tells it: the rotation runs while a partner and a member work,
 * the instances are restarted with the new key one at a time, and at every step a partner token
 * from any instance works on every other one and the member's PIN signs (an App2App approval). The
 * new key stays on disk until the last instance runs it and `keys finish-rotation` retires the old
 * one; after that only the new key is needed, and the old key's tokens and processes are refused.
 */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const run = promisify(execFile);

/** An authorised Family A call with no side effect: a secure file that does not exist answers 404 once authorised. */
const PROBE = '/v2/wallet/nftResource/secure/00000000-0000-4000-8000-000000000000.png';
const MEMBER_PIN = '582047';

let chain: TestChain;
let installation: SharedInstallation;
const instances: Array<{ service: ChildProcess; baseUrl: string; key: string } | undefined> = [];
let partner: { email: string; passwordHash: string };
let member: { email: string; passwordHash: string; address: Address };

before(async () => {
  if (!onPostgres) return;
  chain = await startTestChain();
  // The rate limits are not what this test is about: its calls stay far below these.
  const unlimited = { max: 100_000, timeWindowMs: 60_000 };
  installation = await createSharedInstallation({
    rpcUrl: chain.rpcUrl,
    chainId: chain.chainId,
    store: 'postgres',
    configFile: { partnerApi: { rateLimit: unlimited }, http: { rateLimits: { prepare: unlimited, signIn: unlimited, a2aReads: unlimited } } },
  });
  const setup = await installation.open();
  try {
    // The partner's card contract is deployed from here, before any instance runs.
    await setup.outbox.start();
    await setup.chains.get('main').client.request({ method: 'anvil_setBalance', params: [setup.operator.address as Address, toHex(parseEther('1000'))] } as never);
    const approved = await buildApprovedPartner(setup);
    partner = { email: approved.partner.email, passwordHash: approved.passwordHash };
    const built = await buildUser(setup, { pin: MEMBER_PIN });
    member = { email: built.user.email, passwordHash: sha256Hex(built.password), address: built.user.main_address as Address };
  } finally {
    await setup.outbox.stop();
    await setup.close();
  }
});

after(async () => {
  await Promise.all(instances.map((instance) => stopService(instance?.service)));
  await installation?.remove();
  await chain?.stop();
});

async function call(baseUrl: string, method: string, path: string, body?: unknown, authorization?: string) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(authorization ? { authorization } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

async function startInstance(index: number, key: string): Promise<void> {
  // A busy machine (the whole suite on two cores) can take minutes to start a process.
  const started = await startService({ ...installation.env, WALLET_MASTER_KEY: key }, { timeoutMs: 300_000 });
  instances[index] = { ...started, key };
}

async function restartInstance(index: number, key: string): Promise<void> {
  await stopService(instances[index]?.service);
  instances[index] = undefined;
  await startInstance(index, key);
}

const live = () => instances.filter((instance): instance is NonNullable<typeof instance> => instance !== undefined);

/** The CLI beside the instances (same store, data directory and chain), with this master key. */
async function cli(args: string[], key: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [WALLET_SERVICE_BIN, ...args], { env: { ...installation.env, WALLET_MASTER_KEY: key }, timeout: 300_000 });
    return { code: 0, stdout: stdout.trim(), stderr: stderr.trim() };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: (failed.stdout ?? '').trim(), stderr: (failed.stderr ?? '').trim() };
  }
}

async function cliJson(args: string[], key: string): Promise<Record<string, any>> {
  const result = await cli([...args, '--json'], key);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as Record<string, any>;
}

async function partnerToken(baseUrl: string): Promise<string> {
  const signedIn = await call(baseUrl, 'POST', '/v2/partner/auth', { email: partner.email, password: partner.passwordHash });
  assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
  return signedIn.body.access_token as string;
}

/** The member signs a message with their PIN: prepared on one instance, approved on another, the signature theirs. */
async function memberSigns(prepareAt: string, approveAt: string, text: string): Promise<void> {
  const session = await call(approveAt, 'POST', '/v2/wallet-app/sessions', { email: member.email, password: member.passwordHash });
  assert.equal(session.status, 200, JSON.stringify(session.body));
  const prepared = await call(prepareAt, 'POST', '/v2/a2a/prepare', { bapp: { name: 'Rollout' }, type: 'sign_message_eip191', message: { value: text } });
  assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
  const auth = `Bearer ${session.body.session_token as string}`;
  const approved = await call(approveAt, 'POST', `/v2/wallet-app/a2a/requests/${prepared.body.request_key as string}/approve`, { pin: sha256Hex(MEMBER_PIN) }, auth);
  assert.equal(approved.status, 200, `${text}: ${JSON.stringify(approved.body)}`);
  assert.equal(approved.body.status, 'completed');
  assert.ok(await verifyMessage({ address: member.address, message: text, signature: approved.body.result.signature }), `${text}: signed by the member's key`);
}

/**
 * Every live instance issues a partner token and every live instance accepts it, and the earlier
 * tokens given; the member signs, prepared on each instance and approved on the next. The tokens
 * issued, by the master key of the instance that signed each.
 */
async function everyoneWorks(step: string, earlierTokens: string[] = []): Promise<Map<string, string[]>> {
  const tokens = [];
  const byKey = new Map<string, string[]>();
  for (const instance of live()) {
    const token = await partnerToken(instance.baseUrl);
    tokens.push(token);
    byKey.set(instance.key, [...(byKey.get(instance.key) ?? []), token]);
  }
  for (const [t, token] of [...tokens, ...earlierTokens].entries()) {
    for (const [i, instance] of live().entries()) {
      const probed = await call(instance.baseUrl, 'GET', PROBE, undefined, token);
      assert.deepEqual(probed, { status: 404, body: { code: 404, err: 'not Found' } }, `${step}: token ${t} on instance ${i} (key ${instance.key.slice(0, 4)}…)`);
    }
  }
  const all = live();
  for (const [i, instance] of all.entries()) await memberSigns(instance.baseUrl, all[(i + 1) % all.length]!.baseUrl, `${step}: ${i}`);
  return byKey;
}

const status = (key: string) => cliJson(['keys', 'status'], key);
const instanceKeys = async (key: string) =>
  ((await status(key)).instances as Array<{ master_key_id: string; live: boolean }>).filter((instance) => instance.live).map((instance) => instance.master_key_id).sort();

test(
  'three instances rotate the master key one at a time while a partner and a member keep working',
  { timeout: 1_800_000, skip: onPostgres ? false : 'needs TEST_DATABASE_URL' },
  async () => {
    const oldKey = installation.env.WALLET_MASTER_KEY!;
    const nextFile = join(installation.dataDir, 'master.key.next');
    const previousFile = join(installation.dataDir, 'master.key.previous');
    for (const index of [0, 1, 2]) await startInstance(index, oldKey);
    const before = await everyoneWorks('before');

    // The rotation runs while the partner and the member keep calling every instance.
    let rotating = true;
    const during: string[] = [];
    const work = (async () => {
      for (let round = 0; rotating; round++) {
        const instance = instances[round % 3]!;
        const token = await partnerToken(instance.baseUrl);
        assert.equal((await call(instances[(round + 1) % 3]!.baseUrl, 'GET', PROBE, undefined, token)).status, 404);
        await memberSigns(instance.baseUrl, instances[(round + 2) % 3]!.baseUrl, `during the rotation: ${round}`);
        during.push(token);
      }
    })();
    const rotated = await cliJson(['keys', 'rotate-master', '--batch-size', '1'], oldKey).finally(() => (rotating = false));
    await work;
    assert.ok(during.length > 0, 'work went on while the keys moved');
    const newKey = rotated.master_key as string;
    assert.match(newKey, /^[0-9a-f]{64}$/);
    assert.ok(rotated.rewrapped_keys >= 3, 'the operator, partner and member keys moved');
    const oldId = rotated.from_master_key_id as string;
    const newId = rotated.master_key_id as string;
    assert.ok(existsSync(nextFile) && existsSync(previousFile), 'both keys are in the data directory during the rollout');
    const oldTokens = [...(before.get(oldKey) ?? []), ...((await everyoneWorks('rotated, every instance on the old key')).get(oldKey) ?? [])];
    assert.equal(oldTokens.length, 6);

    // One at a time onto the new key: the tokens of either key work everywhere, the new key stays on disk.
    const newTokens: string[] = [];
    for (const index of [0, 1, 2]) {
      await restartInstance(index, newKey);
      const step = `instance ${index} restarted with the new key`;
      const issued = await everyoneWorks(step, [...oldTokens, ...newTokens]);
      oldTokens.push(...(issued.get(oldKey) ?? []));
      newTokens.push(...(issued.get(newKey) ?? []));
      assert.equal(readFileSync(nextFile, 'utf8').trim(), newKey, `${step}: master.key.next stays`);
      assert.ok(existsSync(previousFile), `${step}: master.key.previous stays`);
      assert.deepEqual(await instanceKeys(newKey), [...Array(index + 1).fill(newId), ...Array(2 - index).fill(oldId)].sort(), step);
      if (index < 2) {
        const refused = await cli(['keys', 'finish-rotation'], newKey);
        assert.equal(refused.code, 1, `${step}: the rotation cannot be finished yet`);
        assert.match(refused.stderr, new RegExp(`^wallet-service: ${2 - index} instance\\(s\\) still run with the old master key: `));
        assert.ok(existsSync(nextFile) && existsSync(previousFile), `${step}: a refused finish deletes nothing`);
      }
    }

    // Every instance on the new key: the operator retires the old one (with the new key only).
    const withOldKey = await cli(['keys', 'finish-rotation'], oldKey);
    assert.equal(withOldKey.code, 1);
    assert.match(withOldKey.stderr, /was given the old master key/);
    const finished = await cliJson(['keys', 'finish-rotation'], newKey);
    assert.deepEqual({ finished: finished.finished, retired: finished.retired_master_key_id, removed: [...finished.removed_files].sort() }, { finished: true, retired: oldId, removed: ['master.key.next', 'master.key.previous'] });
    assert.ok(!existsSync(nextFile) && !existsSync(previousFile));
    const after = await status(newKey);
    assert.deepEqual({ key: after.master_key_id, rotation: after.rotation, files: after.key_files }, { key: newId, rotation: null, files: [] });

    // Only the new key is needed now: the old key's tokens are refused everywhere, its processes do not start.
    assert.equal(oldTokens.length, 6 + 2 + 1);
    for (const token of oldTokens) {
      for (const instance of live()) assert.deepEqual(await call(instance.baseUrl, 'GET', PROBE, undefined, token), { status: 401, body: { code: 4001, err: 'invalid access token' } });
    }
    await assert.rejects(startService({ ...installation.env, WALLET_MASTER_KEY: oldKey }, { timeoutMs: 300_000 }), /is not the one this store's keys were sealed with/);
    await restartInstance(0, newKey);
    await everyoneWorks('after the finish', newTokens);
  },
);
