import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, getAddress, http, type Address } from 'viem';
import { openStore } from '../store/database.ts';
import { openSecret } from '../custody/envelope.ts';
import { loadMasterKey } from '../custody/master-key.ts';
import { createTestSchema } from '../testing/test-services.ts';
import { startService, stopService } from '../testing/service-process.ts';
import { runCli } from '../testing/cli-runner.ts';
import { databaseUrlWithSchema } from '../testing/test-store.ts';

import { WALLET_SERVICE_BIN as BIN } from '../testing/service-process.ts';

/**
 * The operator's view: `wallet-service serve` as a child process, and CLI commands run against
 * its data directory while it runs; then a restart that must bring everything back.
 */
describe('wallet-service serve and operator CLI (child processes)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'wallet-cli-'));
  let env: NodeJS.ProcessEnv;
  let service: ChildProcess | undefined;
  let baseUrl = '';
  let dropSchema: (() => Promise<void>) | undefined;

  before(async () => {
    env = {
      ...process.env,
      WALLET_DATA_DIR: dataDir,
      PORT: '0',
      WALLET_CHAIN_ETHEREUM: 'off',
      WALLET_CHAIN_POLYGON: 'off',
      LOG_LEVEL: 'warn',
    };
    if (process.env.WALLET_TEST_STORE === 'postgres') {
      const schema = await createTestSchema();
      dropSchema = schema.drop;
      env.DATABASE_URL = databaseUrlWithSchema(schema.databaseUrl, schema.schema);
    }
    ({ service, baseUrl } = await startService(env));
  });

  after(async () => {
    await stopService(service);
    await dropSchema?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  // Never spawnSync while a service child runs: see testing/cli-runner.ts.
  function cli(...args: string[]) {
    return runCli(BIN, args, { env });
  }

  test('--help lists the commands and exits 0', async () => {
    const help = (await cli('--help'));
    assert.equal(help.code, 0);
    for (const command of ['serve', 'partner create', 'partner approve', 'user create', 'faucet']) assert.ok(help.stdout.includes(command));
    for (const flag of ['--password-stdin', '--pin-stdin', 'WALLET_PASSWORD', 'WALLET_PIN']) assert.ok(help.stdout.includes(flag), flag);
    assert.match(help.stdout, /visible|sees them in `ps`/);
  });

  test('health answers 200 with the store and the chain', async () => {
    const response = await fetch(`${baseUrl}/health`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: 'ok', checks: { store: 'ok', 'chain:main': 'ok' } });
  });

  test('partner create, approve, user create and faucet; everything survives a restart', async () => {
    const created = (await cli('partner', 'create', '--email', 'Shop@Example.com', '--password', 'secret pass', '--pin', '731946', '--name', 'Shop Ltd', '--phone', '+1 415 555 0100', '--service-name', 'Shop Cards', '--json'));
    assert.equal(created.code, 0, created.stderr);
    const partner = JSON.parse(created.stdout);
    assert.equal(partner.status, 20);
    assert.match(partner.main_address, /^0x[0-9a-f]{40}$/);

    const duplicate = (await cli('partner', 'create', '--email', 'shop@example.com', '--password', 'Other-River-Stone-7', '--pin', '582039', '--name', 'n', '--phone', '+14155550100', '--service-name', 's'));
    assert.equal(duplicate.code, 1);
    assert.equal(duplicate.stderr, 'wallet-service: error 413: already existing email');

    const approved = (await cli('partner', 'approve', '--email', 'shop@example.com', '--mint-limit', '500', '--json'));
    assert.equal(approved.code, 0, approved.stderr);
    const approval = JSON.parse(approved.stdout);
    assert.equal(approval.status, 1);
    assert.equal(approval.nft_id, 1);
    assert.equal(approval.mint_limit, 500);
    assert.equal(approval.card_contract, 'indexed');

    const member = (await cli('user', 'create', '--name', 'Kim Member', '--phone', '+1 415 555 0199', '--email', 'kim@example.com', '--password', 'Tall-Maple-Cloud-42', '--pin', '582039', '--birth', '1990-02-03', '--json'));
    assert.equal(member.code, 0, member.stderr);
    const user = JSON.parse(member.stdout);
    const underage = (await cli('user', 'create', '--name', 'Young', '--phone', '+1 415 555 0198', '--email', 'y@example.com', '--password', 'Tall-Maple-Cloud-42', '--pin', '582039', '--birth', '2015-02-03'));
    assert.equal(underage.stderr, 'wallet-service: error 411: teenagers under the age of 19 are not allowed to sign up');
    const badBirth = (await cli('user', 'create', '--name', 'Y', '--phone', '+1 415 555 0197', '--email', 'z@example.com', '--password', 'Tall-Maple-Cloud-42', '--pin', '582039', '--birth', '1990-02-30'));
    assert.equal(badBirth.stderr, 'wallet-service: error 410: invalid birth for account creation');

    const paid = (await cli('faucet', '--to', user.main_address, '--amount', '2.5', '--json'));
    assert.equal(paid.code, 0, paid.stderr);
    assert.equal(JSON.parse(paid.stdout).status, 'success');
    const badFaucet = (await cli('faucet', '--to', 'not-an-address', '--amount', '1'));
    assert.equal(badFaucet.code, 1);
    assert.match(badFaucet.stderr, /error 6403/);
    assert.match((await cli('partner', 'approve')).stderr, /missing --email/);

    const chainBefore = await chainOf(dataDir);
    assert.notEqual(await chainBefore.getCode({ address: approval.contract_address }), undefined);
    assert.equal(await chainBefore.readContract({ address: approval.contract_address, abi: OWNER_ABI, functionName: 'owner' }), checksum(partner.main_address));

    await stopService(service);
    ({ service, baseUrl } = await startService(env));

    const chainAfter = await chainOf(dataDir);
    const code = await chainAfter.getCode({ address: approval.contract_address });
    assert.ok(code && code.length > 2, 'the card contract is gone after a restart');
    assert.equal(await chainAfter.getBalance({ address: user.main_address }), 2_500_000_000_000_000_000n);
    const again = (await cli('partner', 'approve', '--email', 'shop@example.com', '--json'));
    assert.equal(JSON.parse(again.stdout).contract_address, approval.contract_address, 'approval is idempotent');
    assert.equal((await fetch(`${baseUrl}/health`)).status, 200);
  });

  test('a member locked by five wrong PINs approves again after `user unlock`', async () => {
    const post = async (path: string, body: unknown, token?: string) => {
      const response = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const member = (await cli('user', 'create', '--name', 'Lee Member', '--phone', '+1 415 555 0177', '--email', 'lee@example.com', '--password', 'Tall-Maple-Cloud-42', '--pin', '582039', '--birth', '1988-06-07', '--json'));
    assert.equal(member.code, 0, member.stderr);
    const session = await post('/v2/wallet-app/sessions', { email: 'lee@example.com', password: sha('Tall-Maple-Cloud-42') });
    assert.equal(session.status, 200, JSON.stringify(session.body));
    const token = session.body.session_token as string;
    const prepared = await post('/v2/a2a/prepare', { bapp: { name: 'CLI test' }, type: 'sign_message', message: { value: 'hello' } });
    const key = prepared.body.request_key as string;
    const approve = (pin: string) => post(`/v2/wallet-app/a2a/requests/${key}/approve`, { pin }, token);

    // A PIN that is not SHA-256 hex is the client's mistake: refused, not counted.
    assert.equal((await approve('582039')).body.code, 400);
    const answers = [];
    for (let attempt = 0; attempt < 5; attempt += 1) answers.push((await approve(sha('000000'))).body.code);
    assert.deepEqual(answers, [4006, 4006, 4006, 4006, 403]);
    assert.equal((await approve(sha('582039'))).body.code, 403, 'locked even with the right PIN');

    const unknown = (await cli('user', 'unlock', '--email', 'nobody@example.com'));
    assert.deepEqual([unknown.code, unknown.stderr], [1, 'wallet-service: error 406: not found user info in db']);
    const unlocked = (await cli('user', 'unlock', '--email', 'Lee@Example.com', '--json'));
    assert.equal(unlocked.code, 0, unlocked.stderr);
    assert.deepEqual(JSON.parse(unlocked.stdout), { email: 'lee@example.com', pin_locked: false });
    const approved = await approve(sha('582039'));
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.status, 'completed');
  });

  test('account statuses set from the CLI reach their codes on the real routes, and every change is in the audit log', async () => {
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const json = (result: { code: number | null; stdout: string; stderr: string }) => {
      assert.equal(result.code, 0, result.stderr);
      return JSON.parse(result.stdout);
    };
    json((await cli('partner', 'create', '--email', 'status@example.com', '--password', 'Tall-Maple-Cloud-42', '--pin', '731946', '--name', 'Status Ltd', '--phone', '+1 415 555 0150', '--service-name', 'Status Cards', '--json')));
    assert.match((await cli('partner', 'set-status', '--email', 'status@example.com', '--status', 'active')).stderr, /never approved: run partner approve/);
    json((await cli('partner', 'approve', '--email', 'status@example.com', '--json')));
    const partnerSignIn = () => post('/v2/partner/auth', { email: 'status@example.com', password: sha('Tall-Maple-Cloud-42') });
    assert.equal((await partnerSignIn()).status, 200);
    for (const [status, code] of [['suspended', 422], ['banned', 421], ['unsubscribed', 423]] as const) {
      const changed = json((await cli('partner', 'set-status', '--email', 'status@example.com', '--status', status, '--reason', 'review', '--json')));
      assert.equal(changed.status, status);
      const refused = await partnerSignIn();
      assert.deepEqual([refused.status, refused.body.code], [401, code], status);
    }
    json((await cli('partner', 'set-status', '--email', 'status@example.com', '--status', 'active', '--json')));
    assert.equal((await partnerSignIn()).status, 200);
    assert.match((await cli('partner', 'set-status', '--email', 'status@example.com', '--status', 'gone')).stderr, /--status must be one of active, banned, suspended, unsubscribed/);

    assert.equal(json((await cli('partner', 'set-mint-limit', '--email', 'status@example.com', '--mint-limit', '7', '--json'))).mint_limit, 7);
    const shown = json((await cli('partner', 'show', '--phone', '+1 415 555 0150', '--json')));
    assert.deepEqual([shown.email, shown.mint_limit, shown.status], ['status@example.com', 7, 'active']);
    assert.equal(shown.password_hash, undefined, 'no secrets printed');
    const byAddress = json((await cli('partner', 'list', '--search', shown.main_address, '--json')));
    assert.deepEqual(byAddress.partners.map((partner: { email: string }) => partner.email), ['status@example.com']);
    json((await cli('partner', 'create', '--email', 'status-2@example.com', '--password', 'Tall-Maple-Cloud-42', '--pin', '731946', '--name', 'Status Two', '--phone', '+1 415 555 0152', '--service-name', 'Two', '--json')));
    const firstPage = json((await cli('partner', 'list', '--search', 'status', '--limit', '1', '--json')));
    const secondPage = json((await cli('partner', 'list', '--search', 'status', '--limit', '1', '--cursor', firstPage.next_cursor, '--json')));
    assert.deepEqual([...firstPage.partners, ...secondPage.partners].map((partner: { email: string }) => partner.email), ['status-2@example.com', 'status@example.com']);

    json((await cli('user', 'create', '--name', 'Status Member', '--phone', '+1 415 555 0151', '--email', 'member-status@example.com', '--password', 'Tall-Maple-Cloud-42', '--pin', '582039', '--birth', '1990-01-01', '--json')));
    const memberSignIn = () => post('/v2/wallet-app/sessions', { email: 'member-status@example.com', password: sha('Tall-Maple-Cloud-42') });
    assert.equal((await memberSignIn()).status, 200);
    const prepared = await post('/v2/a2a/prepare', { bapp: { name: 'Status test' }, type: 'auth' });
    for (const [status, code] of [['banned', 421], ['suspended', 422], ['unsubscribed', 423]] as const) {
      json((await cli('user', 'set-status', '--email', 'member-status@example.com', '--status', status, '--json')));
      const refused = await memberSignIn();
      assert.deepEqual([refused.status, refused.body.code], [401, code], status);
    }
    const approval = (await cli('a2a', 'approve', '--request-key', prepared.body.request_key as string, '--user', 'member-status@example.com', '--pin', '582039'));
    assert.deepEqual([approval.code, approval.stderr], [1, "wallet-service: error 6501: invalid user status: the member's status is 423"]);
    json((await cli('user', 'set-status', '--email', 'member-status@example.com', '--status', 'active', '--json')));
    assert.equal((await memberSignIn()).status, 200);
    assert.equal(json((await cli('user', 'list', '--search', '5550151', '--json'))).users[0].email, 'member-status@example.com');
    assert.match((await cli('user', 'show', '--email', 'a@example.com', '--phone', '+1 415 555 0151')).stderr, /exactly one of --email, --phone, --address/);

    const audit = json((await cli('audit', 'list', '--limit', '3', '--json')));
    assert.deepEqual(
      audit.entries.map((entry: { action: string; target: string; before: unknown; after: unknown }) => [entry.action, entry.target, entry.before, entry.after]),
      [
        ['user set-status', 'member member-status@example.com', { status: 'unsubscribed' }, { status: 'active' }],
        ['user set-status', 'member member-status@example.com', { status: 'suspended' }, { status: 'unsubscribed' }],
        ['user set-status', 'member member-status@example.com', { status: 'banned' }, { status: 'suspended' }],
      ],
    );
    assert.ok(audit.entries.every((entry: { actor: string; at: string }) => entry.actor.length > 0 && !Number.isNaN(Date.parse(entry.at))));
    const older = json((await cli('audit', 'list', '--limit', '100', '--cursor', audit.next_cursor, '--json')));
    assert.ok(older.entries.some((entry: { action: string; after: { mint_limit?: number } }) => entry.action === 'partner set-mint-limit' && entry.after.mint_limit === 7));
    assert.ok(older.entries.some((entry: { action: string; after: { reason?: string } }) => entry.action === 'partner set-status' && entry.after.reason === 'review'));
    assert.ok(older.entries.some((entry: { action: string; target: string }) => entry.action === 'partner approve' && entry.target === 'status@example.com'));
  });

  test('limits show prints the limits in force, each with the code past it', async () => {
    const limits = JSON.parse((await cli('limits', 'show', '--json')).stdout);
    assert.deepEqual(
      [limits.invite_receiver_daily_4114, limits.invite_receiver_monthly_4115, limits.execute_contract_daily_6200, limits.partner_default_mint_monthly_4080],
      [3, 10, 100, 10_000],
    );
    assert.equal(limits.partner_api_requests_429, '300 per 60 s per client address');
  });

  test('passwords and PINs come from standard input or the environment, never the command line; weak ones are refused', async () => {
    const signIn = async (email: string, password: string) =>
      (await fetch(`${baseUrl}/v2/wallet-app/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: sha(password) }) })).status;

    // Standard input, one line each: the password's first, then the PIN's.
    const fromStdin = spawn(process.execPath, [BIN, 'user', 'create', '--name', 'Ari Member', '--phone', '+1 415 555 0161', '--email', 'ari@example.com', '--birth', '1991-04-05', '--password-stdin', '--pin-stdin', '--json'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    fromStdin.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    fromStdin.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => fromStdin.once('exit', resolve));
    fromStdin.stdin.end('Quiet-Harbor-Lamp-81\n582039\n');
    // While it runs, what any local user sees of it in `ps`.
    const commandLine = (() => {
      try {
        return readFileSync(`/proc/${fromStdin.pid}/cmdline`, 'utf8');
      } catch {
        return ''; // already gone: nothing to see either
      }
    })();
    assert.ok(!commandLine.includes('Quiet-Harbor') && !commandLine.includes('582039'), commandLine);
    assert.equal(await exited, 0, stderr);
    assert.equal(JSON.parse(stdout).email, 'ari@example.com');
    assert.equal(await signIn('ari@example.com', 'Quiet-Harbor-Lamp-81'), 200, 'the password read from standard input is the one stored');

    // The environment, with no secret option at all.
    const fromEnv = await runCli(BIN, ['user', 'create', '--name', 'Bo Member', '--phone', '+1 415 555 0162', '--email', 'bo@example.com', '--birth', '1992-05-06', '--json'], {
      env: { ...env, WALLET_PASSWORD: 'Amber-Field-Kettle-5', WALLET_PIN: '582039' },
    });
    assert.equal(fromEnv.code, 0, fromEnv.stderr);
    assert.equal(await signIn('bo@example.com', 'Amber-Field-Kettle-5'), 200, 'the password from WALLET_PASSWORD is the one stored');

    // Nowhere given and no terminal to ask on: refused, naming the safe ways first.
    const missing = await runCli(BIN, ['user', 'create', '--name', 'Cy', '--phone', '+1 415 555 0163', '--email', 'cy@example.com', '--birth', '1990-01-01', '--pin', '582039'], { env, input: '' });
    assert.deepEqual([missing.code, missing.stderr], [1, 'wallet-service: missing --password-stdin (or WALLET_PASSWORD, or --password)']);
    const shortStdin = await runCli(BIN, ['user', 'create', '--name', 'Cy', '--phone', '+1 415 555 0163', '--email', 'cy@example.com', '--birth', '1990-01-01', '--password-stdin', '--pin-stdin'], { env, input: 'Amber-Field-Kettle-5\n' });
    assert.deepEqual([shortStdin.code, shortStdin.stderr], [1, 'wallet-service: --pin-stdin: no pin on line 2 of standard input']);
    assert.match((await cli('partner', 'list', '--pin-stdin')).stderr, /--pin-stdin: this command takes no pin/);

    // Weak secrets: refused with their codes, nothing created.
    const partner = ['partner', 'create', '--email', 'weak@example.com', '--name', 'Weak Ltd', '--phone', '+1 415 555 0164', '--service-name', 'Weak'];
    const weakPin = (await cli(...partner, '--password', 'Tall-Maple-Cloud-42', '--pin', '111111'));
    assert.equal(weakPin.code, 1);
    assert.match(weakPin.stderr, /^wallet-service: error 4010: pin is too easy to guess/);
    const weakPassword = (await cli(...partner, '--password', 'password', '--pin', '731946'));
    assert.match(weakPassword.stderr, /^wallet-service: error 4011: password is too easy to guess/);
    const weakMember = await runCli(BIN, ['user', 'create', '--name', 'Dee', '--phone', '+1 415 555 0165', '--email', 'dee@example.com', '--birth', '1990-01-01', '--pin-stdin', '--password', 'Tall-Maple-Cloud-42'], { env, input: '123456\n' });
    assert.match(weakMember.stderr, /^wallet-service: error 4010: /);
    assert.equal((await cli('partner', 'show', '--email', 'weak@example.com')).stderr, 'wallet-service: error 406: not found user info in db');
    assert.equal((await cli('user', 'show', '--email', 'dee@example.com')).stderr, 'wallet-service: error 406: not found user info in db');
  });

  test('the store holds no plaintext private key or mnemonic', async () => {
    const masterKey = await loadMasterKey({ dataDir, masterKeyHex: null });
    const store = await openStore({
      databaseUrl: env.DATABASE_URL,
      sqlitePath: join(dataDir, 'wallet.sqlite'),
    });
    try {
      const keys = await store.db.selectFrom('signing_keys').selectAll().execute();
      assert.ok(keys.length >= 3);
      const secrets: string[] = [];
      const pins: Record<string, string> = { partner: sha('731946'), user: sha('582039') };
      for (const key of keys) {
        const secret = await openSecret({
          masterKey,
          sealed: { kdfSalt: key.kdf_salt, wrappedDataKey: key.wrapped_data_key, encryptedSecret: key.encrypted_secret },
          ownerId: key.owner_id,
          address: key.address,
          ...(key.protection === 'pin' ? { pin: pins[key.owner_type]! } : {}),
        });
        const hex = Buffer.from(secret).toString('hex');
        secrets.push(hex, Buffer.from(secret).toString('base64'));
      }
      const tables = ['signing_keys', 'partners', 'users', 'nft_contracts', 'account_nonces', 'outbox_transactions', 'service_settings'] as const;
      for (const table of tables) {
        const rows = await store.db.selectFrom(table).selectAll().execute();
        const text = JSON.stringify(rows).toLowerCase();
        for (const secret of secrets) assert.ok(!text.includes(secret.toLowerCase()), `${table} holds a plaintext key`);
        assert.ok(!text.includes(sha('secret pass')), `${table} holds a password as sent`);
      }
    } finally {
      await store.close();
    }
  });
});

const OWNER_ABI = [{ type: 'function', name: 'owner', stateMutability: 'view', inputs: [], outputs: [{ type: 'address' }] }] as const;

function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function checksum(address: string): Address {
  return getAddress(address);
}

async function chainOf(dataDir: string) {
  const { readFileSync } = await import('node:fs');
  const record = JSON.parse(readFileSync(join(dataDir, 'chains', 'main', 'node.json'), 'utf8')) as { rpcUrl: string };
  return createPublicClient({ transport: http(record.rpcUrl) });
}
