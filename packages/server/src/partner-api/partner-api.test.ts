import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildApp, type App } from '../app.ts';
import { main } from '../cli/main.ts';
import { ConfigError, loadConfig, type Config } from '../config/config.ts';
import { sha256Hex } from '../custody/passwords.ts';
import type { Services } from '../services.ts';
import { openStore } from '../store/database.ts';
import { openTestApp, type TestServices } from '../testing/test-services.ts';
import { buildPng } from '../uploads/testing/media.ts';
import { uploadBody } from '../uploads/testing/multipart.ts';
import { clientAddressKey } from '../sign-in-guard/client-address.ts';
import { isPartnerProgramOpen } from './program-window.ts';
import { signedInPartner } from './testing/partner-session.ts';
import { withoutMessage } from '../testing/responses.ts';

let services: TestServices;
let app: App;
const apps: App[] = [];

before(async () => {
  ({ services, app } = await openTestApp({ partnerApi: { rateLimit: { max: 100_000, timeWindowMs: 60_000 } } }));
});
after(async () => {
  for (const other of apps) await other.close();
  await app?.close();
  await services?.cleanup();
});

/** Another app over the same services with some config changed (the config is otherwise fixed at start). */
async function appWith(change: (config: Config) => Partial<Config>): Promise<App> {
  const config = structuredClone(services.config) as Config;
  const changed: Services = { ...services, config: { ...config, ...change(config) } };
  const other = await buildApp({ services: changed });
  apps.push(other);
  return other;
}

const closed = { code: 440, err: 'content is not active' };

describe('configuration of Family A', () => {
  test('partnerProgram.endsAt must be a date-time with an offset; WALLET_PARTNER_PROGRAM_ENDS_AT and WALLET_S3_* map to it', () => {
    const base = { env: {}, overrides: { dataDir: tmpdir() } };
    assert.equal(loadConfig(base).partnerProgram.endsAt, null);
    for (const endsAt of ['2024-08-01', '2024-08-01T00:00:00', 'tomorrow', '2024-13-45T99:00:00Z']) {
      assert.throws(() => loadConfig({ ...base, overrides: { ...base.overrides, partnerProgram: { endsAt } } }), ConfigError, endsAt);
    }
    const fromEnv = loadConfig({ ...base, env: { WALLET_PARTNER_PROGRAM_ENDS_AT: '2024-08-01T00:00:00+09:00', WALLET_S3_BUCKET: 'media', WALLET_S3_ENDPOINT: 'http://127.0.0.1:9000', WALLET_S3_FORCE_PATH_STYLE: 'true' } });
    assert.equal(fromEnv.partnerProgram.endsAt, '2024-08-01T00:00:00+09:00');
    assert.deepEqual(fromEnv.storage, { kind: 's3', bucket: 'media', region: 'us-east-1', endpoint: 'http://127.0.0.1:9000', forcePathStyle: true });
    // A storage of another kind replaces the default instead of merging with it.
    assert.deepEqual(loadConfig({ ...base, overrides: { ...base.overrides, storage: { kind: 's3', bucket: 'b', region: 'r' } } }).storage, { kind: 's3', bucket: 'b', region: 'r' });
    assert.throws(() => loadConfig({ ...base, overrides: { ...base.overrides, partnerApi: { rateLimit: { max: 0 } } } }), ConfigError);
  });
});

describe('partner program window (partnerProgram.endsAt)', () => {
  test('open before endsAt, closed from that instant on; null keeps it open', () => {
    const endsAt = '2024-08-01T00:00:00+09:00';
    assert.equal(isPartnerProgramOpen({ partnerProgram: { endsAt } }, new Date('2024-07-31T14:59:59.999Z')), true);
    assert.equal(isPartnerProgramOpen({ partnerProgram: { endsAt } }, new Date('2024-07-31T15:00:00.000Z')), false);
    assert.equal(isPartnerProgramOpen({ partnerProgram: { endsAt: null } }, new Date('2999-01-01T00:00:00Z')), true);
  });

  test('after it every Family A call answers 440; public files stay served', async () => {
    const partner = await signedInPartner(app, services);
    const image = uploadBody(buildPng({ width: 4, height: 4 }), 'a.png');
    const uploaded = await app.inject({ method: 'POST', url: '/v2/wallet/image', headers: { ...image.headers, authorization: partner.token }, payload: image.payload });
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    const imagePath = new URL(uploaded.json().image).pathname;

    const closedApp = await appWith(() => ({ partnerProgram: { endsAt: new Date(Date.now() - 1000).toISOString() } }));
    const body = uploadBody(buildPng({ width: 4, height: 4 }), 'a.png');
    const calls = [
      { method: 'POST' as const, url: '/v2/partner/auth', payload: { email: partner.partner.email, password: partner.passwordHash } },
      { method: 'PUT' as const, url: '/v2/partner/?opt=password', headers: { authorization: partner.token }, payload: { old_password: partner.passwordHash, new_password: sha256Hex('n') } },
      { method: 'PUT' as const, url: '/v2/partner/pin', headers: { authorization: partner.token }, payload: { old_pin: partner.pinHash, new_pin: sha256Hex('n') } },
      { method: 'POST' as const, url: '/v2/wallet/image', headers: { ...body.headers, authorization: partner.token }, payload: body.payload },
      { method: 'POST' as const, url: '/v2/wallet/nftResource', headers: { ...body.headers, authorization: partner.token }, payload: body.payload },
      { method: 'POST' as const, url: '/v2/wallet/nftResource/secure', headers: { ...body.headers, authorization: partner.token }, payload: body.payload },
      { method: 'GET' as const, url: '/v2/wallet/nftResource/secure/00000000-0000-4000-8000-000000000000.png', headers: { authorization: partner.token } },
      // Even without a token: the window is checked first.
      { method: 'GET' as const, url: '/v2/wallet/nftResource/secure/00000000-0000-4000-8000-000000000000.png' },
    ];
    for (const call of calls) {
      const response = await closedApp.inject(call);
      assert.equal(response.statusCode, 401, `${call.method} ${call.url}`);
      assert.deepEqual(response.json(), closed);
    }
    const served = await closedApp.inject({ method: 'GET', url: imagePath });
    assert.equal(served.statusCode, 200);

    const stillOpen = await appWith(() => ({ partnerProgram: { endsAt: new Date(Date.now() + 3_600_000).toISOString() } }));
    const signIn = await stillOpen.inject(calls[0]!);
    assert.equal(signIn.statusCode, 200);
  });

  test('`wallet-service partner create` refuses new partners after it', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'wallet-program-'));
    try {
      const configFile = join(directory, 'wallet.config.json');
      writeFileSync(configFile, JSON.stringify({
        dataDir: join(directory, 'data'),
        databaseUrl: null,
        logLevel: 'silent',
        chains: { ethereum: null, polygon: null },
        partnerProgram: { endsAt: '2024-08-01T00:00:00+09:00' },
      }));
      const errors: string[] = [];
      const originalError = console.error;
      console.error = (...parts: unknown[]) => void errors.push(parts.join(' '));
      let code: number;
      try {
        code = await main([
          'partner', 'create', '--config', configFile, '--email', 'late@example.com', '--password', 'pw', '--pin', '123456',
          '--name', 'Late Ltd', '--phone', '+1 415 555 0111', '--service-name', 'Late Cards',
        ]);
      } finally {
        console.error = originalError;
      }
      assert.equal(code, 1);
      assert.equal(errors.join('\n'), 'wallet-service: error 440: content is not active: the partner program ended at 2024-08-01T00:00:00+09:00');
      const store = await openStore({ sqlitePath: join(directory, 'data', 'wallet.sqlite') });
      try {
        assert.deepEqual(await store.db.selectFrom('partners').select('email').execute(), []);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('Family A rate limit (partnerApi.rateLimit)', () => {
  test('past max requests in the window an address gets 429 with Retry-After; other addresses and non-Family A routes do not', async () => {
    const limited = await appWith(() => ({ partnerApi: { ...services.config.partnerApi, rateLimit: { max: 3, timeWindowMs: 60_000 } } }));
    const probe = (remoteAddress: string) =>
      limited.inject({ method: 'GET', url: '/v2/wallet/nftResource/secure/00000000-0000-4000-8000-000000000000.png', remoteAddress });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const response = await probe('10.9.0.1');
      assert.deepEqual(response.json(), { code: 4003, err: 'fail to get authorization in header' });
    }
    const refused = await probe('10.9.0.1');
    assert.equal(refused.statusCode, 429);
    assert.deepEqual(refused.json(), { code: 429, err: 'too many requests' });
    assert.ok(Number(refused.headers['retry-after']) > 0 && Number(refused.headers['retry-after']) <= 60);
    assert.equal(refused.headers['x-ratelimit-limit'], '3');
    const signIn = await limited.inject({ method: 'POST', url: '/v2/partner/auth', payload: { email: 'a@example.com', password: sha256Hex('p') }, remoteAddress: '10.9.0.1' });
    assert.deepEqual({ status: signIn.statusCode, body: signIn.json() }, { status: 429, body: { code: 429, err: 'too many requests' } });

    const other = await probe('10.9.0.2');
    assert.deepEqual(other.json(), { code: 4003, err: 'fail to get authorization in header' });
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const file = await limited.inject({ method: 'GET', url: '/v2/files/00000000-0000-4000-8000-000000000000.png', remoteAddress: '10.9.0.1' });
      assert.equal(file.statusCode, 404);
    }
  });
});

describe('client address keys', () => {
  test('IPv4 as is, IPv4-mapped unwrapped, IPv6 by its /64', () => {
    assert.equal(clientAddressKey('203.0.113.7'), '203.0.113.7');
    assert.equal(clientAddressKey('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(clientAddressKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
    assert.equal(clientAddressKey('2001:db8:1:2::9'), '2001:db8:1:2::/64');
    assert.equal(clientAddressKey('2001:0DB8:0001:0002:ffff::1'), '2001:db8:1:2::/64');
    assert.equal(clientAddressKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(clientAddressKey('::1'), '0:0:0:0::/64');
    assert.equal(clientAddressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  });
});

describe('Family A failures outside the listed codes', () => {
  test('answer 500 with the operation\'s plain-text message, or an empty body; refusals keep their codes', async () => {
    const partner = await signedInPartner(app, services);
    const db = services.store.db;
    const image = uploadBody(buildPng({ width: 4, height: 4 }), 'a.png');
    const calls = [
      { method: 'POST' as const, url: '/v2/partner/auth', payload: { email: partner.partner.email, password: partner.passwordHash }, text: 'failed to sign in' },
      { method: 'PUT' as const, url: '/v2/partner/?opt=password', headers: { authorization: partner.token }, payload: { old_password: partner.passwordHash, new_password: sha256Hex('n') }, text: 'failed to change password' },
      { method: 'PUT' as const, url: '/v2/partner/pin', headers: { authorization: partner.token }, payload: { old_pin: partner.pinHash, new_pin: sha256Hex('n') }, text: 'failed to change PIN' },
      { method: 'POST' as const, url: '/v2/wallet/image', headers: { ...image.headers, authorization: partner.token }, payload: image.payload, text: 'failed to upload' },
      { method: 'GET' as const, url: '/v2/wallet/bapp', headers: { authorization: partner.token }, text: '' },
    ];
    // The store fails under every call: the partners table is gone for a moment.
    await sql`alter table partners rename to partners_away`.execute(db);
    try {
      for (const { text, ...call } of calls) {
        const answer = await app.inject(call);
        assert.equal(answer.statusCode, 500, `${call.method} ${call.url}`);
        assert.equal(answer.body, text, `${call.method} ${call.url}`);
        if (text) assert.match(String(answer.headers['content-type']), /^text\/plain/);
      }
      // A malformed request is still refused with the registry's body before the store is asked.
      const malformed = await app.inject({ method: 'POST', url: '/v2/partner/auth', payload: { email: 'x' } });
      assert.deepEqual([malformed.statusCode, withoutMessage(malformed.json())], [400, { code: 400, err: 'bad request' }]);
      const unauthorised = await app.inject({ method: 'GET', url: '/v2/wallet/bapp' });
      assert.deepEqual([unauthorised.statusCode, unauthorised.json()], [401, { code: 4003, err: 'fail to get authorization in header' }]);
    } finally {
      await sql`alter table partners_away rename to partners`.execute(db);
    }
    const { text: _text, ...signIn } = calls[0]!;
    const afterwards = await app.inject(signIn);
    assert.equal(afterwards.statusCode, 200, afterwards.body);
  });
});
