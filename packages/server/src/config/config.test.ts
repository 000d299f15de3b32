import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { chainConfirmations, ConfigError, loadConfig } from './config.ts';

test('defaults: everything embedded on loopback, three managed chains, frozen', () => {
  const config = loadConfig({ env: {} });
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.port, 3000);
  assert.equal(config.publicUrl, 'http://127.0.0.1:3000');
  assert.equal(config.databaseUrl, null);
  assert.deepEqual(Object.keys(config.chains), ['main', 'ethereum', 'polygon']);
  assert.equal(config.chains.main?.mode, 'managed');
  assert.equal(config.chains.main?.messagePrefix, '\x19Main Signed Message:\n');
  assert.equal(config.custody.scryptCost, 2 ** 15);
  assert.ok(Object.isFrozen(config) && Object.isFrozen(config.chains.main));
  assert.throws(() => {
    (config as { port: number }).port = 1;
  });
});

test('environment variables override the file, which overrides the defaults', () => {
  const directory = mkdtempSync(join(tmpdir(), 'wallet-config-'));
  const file = join(directory, 'wallet.config.json');
  writeFileSync(file, JSON.stringify({ port: 4000, timeZone: 'Asia/Seoul', chains: { polygon: null } }));
  const config = loadConfig({
    file,
    env: {
      PORT: '5000',
      WALLET_DATA_DIR: directory,
      DATABASE_URL: 'postgres://u@127.0.0.1/db',
      WALLET_CHAIN_ETHEREUM_RPC_URL: 'https://rpc.example.org',
      WALLET_CHAIN_ETHEREUM_CHAIN_ID: '1',
    },
  });
  assert.equal(config.port, 5000);
  assert.equal(config.publicUrl, 'http://127.0.0.1:5000');
  assert.equal(config.timeZone, 'Asia/Seoul');
  assert.equal(config.dataDir, directory);
  assert.equal(config.databaseUrl, 'postgres://u@127.0.0.1/db');
  assert.equal(config.chains.polygon, null);
  assert.deepEqual(config.chains.ethereum, {
    mode: 'external',
    rpcUrl: 'https://rpc.example.org',
    chainId: 1,
    messagePrefix: '\x19Ethereum Signed Message:\n',
  });
  assert.equal(loadConfig({ env: { WALLET_CHAIN_MAIN: 'off' } }).chains.main, null);
  assert.equal(loadConfig({ env: {} }).trustProxy, false);
  assert.equal(loadConfig({ env: { WALLET_TRUST_PROXY: 'true' } }).trustProxy, true);
  assert.equal(loadConfig({ env: { WALLET_TRUST_PROXY: '10.0.0.0/8' } }).trustProxy, '10.0.0.0/8');
});

test('invalid values are refused at start with every problem named', () => {
  assert.throws(
    () => loadConfig({ env: { PORT: '70000', WALLET_MASTER_KEY: 'short', WALLET_TIME_ZONE: 'Mars/Base' } }),
    (error: Error) =>
      error instanceof ConfigError && /\/port/.test(error.message) && /\/masterKey/.test(error.message),
  );
  assert.throws(() => loadConfig({ env: { PORT: 'eighty' } }), /PORT: not a number/);
  assert.throws(() => loadConfig({ env: { WALLET_TIME_ZONE: 'Mars/Base' } }), /unknown time zone/);
  assert.throws(() => loadConfig({ env: {}, overrides: { unknownSetting: 1 } as never }), ConfigError);
  assert.throws(() => loadConfig({ env: { WALLET_CONFIG: '/nonexistent/wallet.json' } }), /cannot read config file/);
});

test('a setting that reads as something else is refused, naming it, instead of being taken for another value', () => {
  const directory = mkdtempSync(join(tmpdir(), 'wallet-config-'));
  const refused = (options: Parameters<typeof loadConfig>[0]) => {
    try {
      loadConfig(options);
    } catch (error) {
      assert.ok(error instanceof ConfigError, String(error));
      return error.message;
    }
    assert.fail('the configuration was accepted');
  };
  // 2024 has no February 30: Date.parse would read it as March 1.
  const february = join(directory, 'february.json');
  writeFileSync(february, JSON.stringify({ partnerProgram: { endsAt: '2024-02-30T00:00:00Z' } }));
  assert.match(refused({ file: february, env: {} }), /\/partnerProgram\/endsAt: not a date and time: 2024-02-30T00:00:00Z/);
  assert.match(refused({ env: { WALLET_PARTNER_PROGRAM_ENDS_AT: '2025-04-31T10:00:00+09:00' } }), /partnerProgram\/endsAt/);
  assert.match(refused({ env: { WALLET_PARTNER_PROGRAM_ENDS_AT: '2025-01-01T24:00:00Z' } }), /partnerProgram\/endsAt/);
  assert.equal(loadConfig({ env: { WALLET_PARTNER_PROGRAM_ENDS_AT: '2024-02-29T23:59:59Z' } }).partnerProgram.endsAt, '2024-02-29T23:59:59Z');
  // A file that is JSON but not an object of settings.
  for (const [content, kind] of [['[1]', 'an array'], ['"port"', 'a string'], ['null', 'null'], ['3', 'a number']]) {
    const file = join(directory, 'not-an-object.json');
    writeFileSync(file, content!);
    assert.equal(refused({ file, env: {} }), `config file ${file} must hold a JSON object of settings, not ${kind}`);
  }
  assert.match(refused({ env: { WALLET_TRUST_PROXY: '!!bad' } }), /\/trustProxy \(WALLET_TRUST_PROXY\): invalid IP address: !!bad/);
  assert.equal(loadConfig({ env: { WALLET_TRUST_PROXY: 'loopback, 10.0.0.0/8' } }).trustProxy, 'loopback, 10.0.0.0/8');
  // scrypt's N: a power of two from 2^10 to 2^20.
  assert.match(refused({ env: { WALLET_SCRYPT_COST: '30000' } }), /\/custody\/scryptCost \(WALLET_SCRYPT_COST\): 30000 is not a power of two/);
  assert.match(refused({ env: { WALLET_SCRYPT_COST: '512' } }), /\/custody\/scryptCost/);
  assert.match(refused({ env: { WALLET_SCRYPT_COST: String(2 ** 21) } }), /\/custody\/scryptCost/);
  assert.equal(loadConfig({ env: { WALLET_SCRYPT_COST: '1024' } }).custody.scryptCost, 1024);
});

test('/metrics: on the service port while it listens on loopback; elsewhere only with a port of its own or a token', () => {
  assert.deepEqual(loadConfig({ env: {} }).metrics, { port: null, host: '127.0.0.1', token: null });
  assert.throws(() => loadConfig({ env: { HOST: '0.0.0.0' } }), (error: Error) => error instanceof ConfigError && /\/metrics.*WALLET_METRICS_PORT.*WALLET_METRICS_TOKEN/s.test(error.message));
  assert.equal(loadConfig({ env: { HOST: '0.0.0.0', WALLET_METRICS_PORT: '9464' } }).metrics.port, 9464);
  assert.equal(loadConfig({ env: { HOST: '0.0.0.0', WALLET_METRICS_TOKEN: 'a-long-enough-token' } }).metrics.token, 'a-long-enough-token');
  assert.throws(() => loadConfig({ env: { WALLET_METRICS_TOKEN: 'short' } }), /\/metrics\/token/);
  assert.throws(() => loadConfig({ env: { PORT: '9464', WALLET_METRICS_PORT: '9464' } }), /the service's own port/);
});

test('confirmations: set per chain, else depth 0 embedded and a default by chain id external; a bad rule is refused by name', () => {
  const external = (chainId: number) => ({ mode: 'external' as const, rpcUrl: 'https://rpc.example.org', chainId, messagePrefix: '\x19Ethereum Signed Message:\n' });
  const config = loadConfig({ env: {}, overrides: { chains: { ethereum: external(1), polygon: external(80002), main: { confirmations: { depth: 3 } } } } });
  assert.deepEqual(chainConfirmations(config.chains.main!), { depth: 3 });
  assert.deepEqual(chainConfirmations(config.chains.ethereum!), { tag: 'finalized' });
  assert.deepEqual(chainConfirmations(config.chains.polygon!), { tag: 'finalized' });
  assert.deepEqual(chainConfirmations(loadConfig({ env: {} }).chains.main!), { depth: 0 });
  assert.deepEqual(chainConfirmations(external(8217)), { depth: 0 }, 'Kaia: instant finality');
  assert.deepEqual(chainConfirmations(external(1001)), { depth: 0 });
  assert.deepEqual(chainConfirmations(external(424242)), { depth: 12 }, 'an unknown chain');
  assert.deepEqual(chainConfirmations({ ...external(1), confirmations: { tag: 'safe' } }), { tag: 'safe' });

  const fromEnv = loadConfig({
    env: { WALLET_CHAIN_ETHEREUM_RPC_URL: 'https://rpc.example.org', WALLET_CHAIN_ETHEREUM_CHAIN_ID: '1', WALLET_CHAIN_ETHEREUM_CONFIRMATIONS: 'safe', WALLET_CHAIN_MAIN_CONFIRMATIONS: '2' },
  });
  assert.deepEqual(fromEnv.chains.ethereum && chainConfirmations(fromEnv.chains.ethereum), { tag: 'safe' });
  assert.deepEqual(fromEnv.chains.main && chainConfirmations(fromEnv.chains.main), { depth: 2 });
  assert.equal(fromEnv.chains.main?.mode, 'managed', 'the embedded chain keeps its other settings');

  for (const rule of [{ depth: 1001 }, { depth: -1 }, { tag: 'latest' }, { depth: 2, tag: 'safe' }, 12]) {
    assert.throws(
      () => loadConfig({ env: {}, overrides: { chains: { main: { confirmations: rule } } } as never }),
      (error: Error) => error instanceof ConfigError && error.message.includes(`/chains/main/confirmations: give { "depth": 0 to 1000 }, { "tag": "safe" } or { "tag": "finalized" }, not ${JSON.stringify(rule)}`),
    );
  }
  assert.throws(() => loadConfig({ env: { WALLET_CHAIN_MAIN_CONFIRMATIONS: 'latest' } }), /WALLET_CHAIN_MAIN_CONFIRMATIONS: give a number of blocks \(0 to 1000\), safe or finalized, not latest/);
  assert.throws(() => loadConfig({ env: { WALLET_CHAIN_MAIN_CONFIRMATIONS: '5000' } }), /\/chains\/main\/confirmations/);
});
