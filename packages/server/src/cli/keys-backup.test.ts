import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, http } from 'viem';
import { openStore } from '../store/database.ts';
import { KeyVault } from '../custody/key-vault.ts';
import { MasterKeyRing } from '../custody/master-key-ring.ts';
import { masterKeyId } from '../custody/envelope.ts';
import { claimSecretContext, webhookSecretContext } from '../custody/sealed-values.ts';
import { createTestSchema } from '../testing/test-services.ts';
import { startService, stopService, WALLET_SERVICE_BIN as BIN } from '../testing/service-process.ts';
import { runCli } from '../testing/cli-runner.ts';
import { databaseUrlWithSchema } from '../testing/test-store.ts';

const run = promisify(execFile);
/** Accounts' password and PINs: none a pattern the weak-secret rule refuses. */
const PASSWORD = 'Tulip-harbour-47';

/**
 * `keys rotate-master` and `backup create|restore` through the CLI beside a running service: a
 * rotation killed halfway and run again, then a backup taken while requests are written, restored
 * into a new data directory and served from there.
 */
describe('keys rotate-master and backup (child processes)', () => {
  const root = mkdtempSync(join(tmpdir(), 'wallet-keys-'));
  const dataDir = join(root, 'data');
  const postgres = process.env.WALLET_TEST_STORE === 'postgres';
  let env: NodeJS.ProcessEnv;
  let service: ChildProcess | undefined;
  let baseUrl = '';
  let dropSchema: (() => Promise<void>) | undefined;

  before(async () => {
    // The backup is taken under as many App2App prepares as the service answers: no rate limit holds them back.
    const configFile = join(root, 'wallet.config.json');
    writeFileSync(configFile, JSON.stringify({ http: { rateLimits: { prepare: { max: 1_000_000, timeWindowMs: 60_000 } } } }));
    env = { ...process.env, WALLET_CONFIG: configFile, WALLET_DATA_DIR: dataDir, PORT: '0', WALLET_CHAIN_ETHEREUM: 'off', WALLET_CHAIN_POLYGON: 'off', LOG_LEVEL: 'warn' };
    delete env.WALLET_MASTER_KEY;
    if (postgres) {
      const schema = await createTestSchema();
      dropSchema = schema.drop;
      env.DATABASE_URL = databaseUrlWithSchema(schema.databaseUrl, schema.schema);
    }
    ({ service, baseUrl } = await startService(env));
  });

  after(async () => {
    await stopService(service);
    await dropSchema?.();
    rmSync(root, { recursive: true, force: true });
  });

  async function restartService() {
    await stopService(service);
    ({ service, baseUrl } = await startService(env));
  }
  // Never spawnSync while a service child runs: see testing/cli-runner.ts.
  function cli(args: string[], extra: NodeJS.ProcessEnv = {}) {
    return runCli(BIN, args, { env: { ...env, ...extra }, timeoutMs: 180_000 });
  }
  async function json(args: string[], extra: NodeJS.ProcessEnv = {}) {
    const result = await cli([...args, '--json'], extra);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout);
  }
  async function post(path: string, body: unknown, token?: string) {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  /** A member signs a message with their PIN on the running service's route. */
  async function memberSigns(email: string, pin: string) {
    const session = await post('/v2/wallet-app/sessions', { email, password: sha(PASSWORD) });
    assert.equal(session.status, 200, JSON.stringify(session.body));
    const prepared = await post('/v2/a2a/prepare', { bapp: { name: 'rotation test' }, type: 'sign_message', message: { value: 'hello' } });
    const approved = await post(`/v2/wallet-app/a2a/requests/${prepared.body.request_key as string}/approve`, { pin: sha(pin) }, session.body.session_token as string);
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.status, 'completed');
  }
  /** Every key of these owners opens with the master key file as it is now and the owner's PIN. */
  async function keysOpen(owners: Array<{ address: string; pin: string }>) {
    const store = await openStore({ databaseUrl: env.DATABASE_URL, sqlitePath: join(dataDir, 'wallet.sqlite') });
    try {
      const vault = new KeyVault(store.db, new MasterKeyRing(Buffer.from(readFileSync(join(dataDir, 'master.key'), 'utf8').trim(), 'hex')));
      for (const owner of owners) {
        const row = await store.db.selectFrom('signing_keys').select('id').where('address', '=', owner.address).executeTakeFirstOrThrow();
        assert.equal((await vault.unlock(row.id, sha(owner.pin))).address, owner.address);
      }
    } finally {
      await store.close();
    }
  }

  /** Every webhook secret is sealed under the master key file as it is now and opens to what the partner was given. */
  async function webhookSecretsOpen(endpoints: Array<{ id: string; secret: string; previous?: string }>) {
    const store = await openStore({ databaseUrl: env.DATABASE_URL, sqlitePath: join(dataDir, 'wallet.sqlite') });
    try {
      const masterKey = Buffer.from(readFileSync(join(dataDir, 'master.key'), 'utf8').trim(), 'hex');
      const vault = new KeyVault(store.db, new MasterKeyRing(masterKey));
      for (const endpoint of endpoints) {
        const row = await store.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
        assert.equal(row.secret_master_key_id, masterKeyId(masterKey));
        assert.equal(await vault.openValue(row.secret_master_key_id!, row.secret, webhookSecretContext(row.id, 'secret')), endpoint.secret);
        if (endpoint.previous) assert.equal(await vault.openValue(row.secret_master_key_id!, row.previous_secret!, webhookSecretContext(row.id, 'previous_secret')), endpoint.previous);
      }
    } finally {
      await store.close();
    }
  }

  /** A claim secret kept for an A17 retry (escrow_claims.sealed_secret): stored sealed under the master key in force, or checked to be sealed under it now. */
  async function claimSecret(claimId: string, secret: string, action: 'store' | 'check') {
    const store = await openStore({ databaseUrl: env.DATABASE_URL, sqlitePath: join(dataDir, 'wallet.sqlite') });
    try {
      const masterKey = Buffer.from(readFileSync(join(dataDir, 'master.key'), 'utf8').trim(), 'hex');
      const vault = new KeyVault(store.db, new MasterKeyRing(masterKey));
      if (action === 'store') {
        const { masterKeyId: sealedUnder, sealed } = await vault.sealValues([{ value: secret, context: claimSecretContext(claimId) }]);
        await store.db
          .insertInto('escrow_claims')
          .values({ id: claimId, chain: 'main', escrow_address: '0x01', nft_id: 1, contract: '0x02', token_id: 1, partner_id: 'p', depositor: '0x03', claim_hash: '0x04', deposit_key: 'escrow-deposit:key:test', claimed_by: null, claimed_to: null, sealed_secret: sealed[0]!, secret_master_key_id: sealedUnder, created_ms: Date.now(), updated_ms: Date.now() })
          .execute();
        return;
      }
      const row = await store.db.selectFrom('escrow_claims').selectAll().where('id', '=', claimId).executeTakeFirstOrThrow();
      assert.equal(row.secret_master_key_id, masterKeyId(masterKey));
      assert.equal(await vault.openValue(row.secret_master_key_id!, row.sealed_secret!, claimSecretContext(claimId)), secret);
    } finally {
      await store.close();
    }
  }

  test('a rotation killed halfway and run again leaves every PIN, key and webhook and claim secret working; the old key is refused', async () => {
    const partner = (await json(['partner', 'create', '--email', 'rotate@example.com', '--password', PASSWORD, '--pin', '739162', '--name', 'Rotate Ltd', '--phone', '+1 415 555 0160', '--service-name', 'Rotate Cards']));
    (await json(['partner', 'approve', '--email', 'rotate@example.com']));
    const members = [];
    for (const [index, pin] of ['582047', '694175', '317408'].entries()) {
      const email = `member-${index}@example.com`;
      const member = (await json(['user', 'create', '--name', `Member ${index}`, '--phone', `+1 415 555 017${index}`, '--email', email, '--password', PASSWORD, '--pin', pin, '--birth', '1990-01-01']));
      members.push({ email, address: member.main_address as string, pin });
    }
    // Webhook secrets are sealed under the master key too; one endpoint has a previous secret in its overlap.
    const endpoints: Array<{ id: string; secret: string; previous?: string }> = [];
    for (const path of ['a', 'b']) {
      const created = (await json(['webhook', 'create', '--email', 'rotate@example.com', '--url', `https://hooks.example.com/${path}`, '--events', 'card.sent']));
      endpoints.push({ id: created.id, secret: created.secret });
    }
    const rotatedSecret = (await json(['webhook', 'rotate-secret', '--email', 'rotate@example.com', '--endpoint', endpoints[0]!.id, '--overlap', '3600']));
    assert.equal(typeof rotatedSecret.previousSecretExpiresAt, 'number');
    endpoints[0] = { id: endpoints[0]!.id, secret: rotatedSecret.secret, previous: endpoints[0]!.secret };
    await webhookSecretsOpen(endpoints);
    const claimId = 'C'.repeat(22);
    const secret = `0x${'ab'.repeat(32)}`;
    await claimSecret(claimId, secret, 'store');
    const oldKey = readFileSync(join(dataDir, 'master.key'), 'utf8').trim();

    const killed = (await cli(['keys', 'rotate-master', '--batch-size', '1'], { WALLET_TEST_ROTATION_KILL_AFTER_BATCHES: '2' }));
    assert.equal(killed.signal, 'SIGKILL', killed.stderr);
    assert.ok(existsSync(join(dataDir, 'master.key.next')), 'the new key is kept while the rotation is under way');
    // Half moved: the running service signs with keys under either master key.
    for (const member of members) await memberSigns(member.email, member.pin);

    const resumed = (await json(['keys', 'rotate-master', '--batch-size', '2']));
    assert.equal(resumed.resumed, true);
    assert.ok(resumed.rewrapped_keys >= 1);
    assert.equal(resumed.resealed_webhook_secrets, endpoints.length, 'the webhook secrets moved after the keys');
    assert.equal(resumed.resealed_claim_secrets, 1, 'and the claim secret');
    assert.equal(resumed.master_key, undefined, 'a key kept in master.key is never printed');
    assert.notEqual(resumed.master_key_id, resumed.from_master_key_id);
    assert.ok(!existsSync(join(dataDir, 'master.key.next')));
    const newKey = readFileSync(join(dataDir, 'master.key'), 'utf8').trim();
    assert.notEqual(newKey, oldKey);
    assert.equal(readFileSync(join(dataDir, 'master.key.previous'), 'utf8').trim(), oldKey, 'the old key is kept until the rotation is finished');

    for (const member of members) await memberSigns(member.email, member.pin);
    await keysOpen([{ address: partner.main_address, pin: '739162' }, ...members]);
    await webhookSecretsOpen(endpoints);
    await claimSecret(claimId, secret, 'check');

    // The running service still runs the old key: the rotation cannot be finished, nor another one started.
    const status = (await json(['keys', 'status']));
    assert.deepEqual(status.rotation, { stage: 'rollout', from_master_key_id: resumed.from_master_key_id, master_key_id: resumed.master_key_id });
    assert.deepEqual(status.instances.map((instance: { master_key_id: string; live: boolean }) => [instance.master_key_id, instance.live]), [[resumed.from_master_key_id, true]]);
    assert.deepEqual(status.key_files, ['master.key', 'master.key.previous']);
    const held = (await cli(['keys', 'finish-rotation']));
    assert.equal(held.code, 1);
    assert.match(held.stderr, /^wallet-service: 1 instance\(s\) still run with the old master key: .* pid \d+ \(/);
    assert.ok(existsSync(join(dataDir, 'master.key.previous')), 'a refused finish deletes nothing');
    assert.match((await cli(['keys', 'rotate-master'])).stderr, /^wallet-service: the rotation to master key \w+ is not finished/);
    const onOldKey = (await cli(['partner', 'unlock', '--email', 'rotate@example.com'], { WALLET_MASTER_KEY: oldKey }));
    assert.equal(onOldKey.code, 0, `until the finish a process given the old key still starts: ${onOldKey.stderr}`);

    // Restarted, the service runs the new key; then the old one is retired.
    await restartService();
    for (const member of members) await memberSigns(member.email, member.pin);
    const finished = (await json(['keys', 'finish-rotation']));
    assert.equal(finished.finished, true);
    assert.equal(finished.retired_master_key_id, resumed.from_master_key_id);
    assert.deepEqual(finished.removed_files, ['master.key.previous']);
    assert.deepEqual((await json(['keys', 'status'])).key_files, ['master.key']);

    const refused = (await cli(['partner', 'unlock', '--email', 'rotate@example.com'], { WALLET_MASTER_KEY: oldKey }));
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^wallet-service: the master key from WALLET_MASTER_KEY \(config masterKey\) is not the one this store's keys were sealed with/);
    assert.equal((await cli(['partner', 'unlock', '--email', 'rotate@example.com'], { WALLET_MASTER_KEY: newKey })).code, 0);
    // A listing opens the store alone, so it answers whatever key it is given, as `keys status` does.
    assert.equal((await cli(['blacklist', 'list'], { WALLET_MASTER_KEY: oldKey })).code, 0);

    // A second rotation, with nothing left over, moves every key at once.
    const again = (await json(['keys', 'rotate-master']));
    assert.equal(again.resumed, false);
    assert.equal(again.resealed_webhook_secrets, endpoints.length);
    assert.equal(again.resealed_claim_secrets, 1);
    await keysOpen([{ address: partner.main_address, pin: '739162' }, ...members]);
    await webhookSecretsOpen(endpoints);
    await claimSecret(claimId, secret, 'check');
    for (const member of members) await memberSigns(member.email, member.pin);
    await restartService();
    assert.equal((await json(['keys', 'finish-rotation'])).finished, true);

    const audit = (await cli(['audit', 'list', '--json']));
    assert.equal(audit.code, 0, audit.stderr);
    const rotations = JSON.parse(audit.stdout).entries.filter((entry: { action: string }) => entry.action === 'keys rotate-master');
    assert.equal(rotations.length, 2);
    for (const key of [oldKey, newKey]) assert.ok(!audit.stdout.includes(key), 'no master key in the audit log');
  });

  test('a backup taken under load restores into a new data directory that serves the same accounts', { skip: postgres && 'PostgreSQL is backed up with pg_dump' }, async () => {
    const partner = (await json(['partner', 'create', '--email', 'backup@example.com', '--password', PASSWORD, '--pin', '861529', '--name', 'Backup Ltd', '--phone', '+1 415 555 0180', '--service-name', 'Backup Cards']));
    const approved = (await json(['partner', 'approve', '--email', 'backup@example.com']));
    const backupDir = join(root, 'backup');

    let writing = true;
    let written = 0;
    const load = (async () => {
      while (writing) {
        const prepared = await post('/v2/a2a/prepare', { bapp: { name: 'load' }, type: 'auth' });
        assert.equal(prepared.status, 200);
        written += 1;
      }
    })();
    const created = await run(process.execPath, [BIN, 'backup', 'create', '--to', backupDir, '--json'], { env, timeout: 180_000 });
    writing = false;
    await load;
    assert.ok(written > 0);
    const backup = JSON.parse(created.stdout);
    assert.equal(backup.master_key_included, true);
    assert.equal(backup.store, 'sqlite: wallet.sqlite');

    const notEmpty = (await cli(['backup', 'create', '--to', backupDir]));
    assert.equal(notEmpty.code, 1);
    assert.match(notEmpty.stderr, /^wallet-service: .*backup exists and is not empty; give a new or empty directory$/);
    const occupied = join(root, 'occupied');
    mkdirSync(occupied);
    writeFileSync(join(occupied, 'x'), 'x');
    assert.equal((await cli(['backup', 'restore', '--from', backupDir, '--data-dir', occupied])).code, 1);
    assert.match((await cli(['backup', 'restore', '--from', root, '--data-dir', join(root, 'elsewhere')])).stderr, /is not a backup made by backup create/);

    const accountsBefore = { partners: (await json(['partner', 'list'])).partners, users: (await json(['user', 'list'])).users };
    await stopService(service);
    service = undefined;

    const restoredDir = join(root, 'restored');
    const restored = (await json(['backup', 'restore', '--from', backupDir, '--data-dir', restoredDir]));
    assert.equal(restored.master_key_included, true);
    env = { ...env, WALLET_DATA_DIR: restoredDir };
    ({ service, baseUrl } = await startService(env));

    const signIn = await post('/v2/partner/auth', { email: 'backup@example.com', password: sha(PASSWORD) });
    assert.equal(signIn.status, 200, JSON.stringify(signIn.body));
    assert.deepEqual({ partners: (await json(['partner', 'list'])).partners, users: (await json(['user', 'list'])).users }, accountsBefore);
    const record = JSON.parse(readFileSync(join(restoredDir, 'chains', 'main', 'node.json'), 'utf8')) as { rpcUrl: string };
    const code = await createPublicClient({ transport: http(record.rpcUrl) }).getCode({ address: approved.contract_address });
    assert.ok(code && code.length > 2, 'the card contract is on the restored chain');
    for (const member of ['member-0@example.com']) await memberSigns(member, '582047');
    assert.equal((await json(['partner', 'show', '--email', 'backup@example.com'])).main_address, partner.main_address);
  });
});

function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
