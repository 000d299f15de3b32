import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from './config.ts';

test('defaults: everything embedded on loopback, three managed chains, frozen', () => {
  const config = loadConfig({ env: {} });
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.port, 3000);
  assert.equal(config.publicUrl, 'http://127.0.0.1:3000');
  assert.equal(config.databaseUrl, null);
  assert.deepEqual(Object.keys(config.chains), ['main', 'ethereum', 'polygon']);
  assert.equal(config.chains.main?.mode, 'managed');
  assert.equal(config.chains.main?.messagePrefix, '\x19Main Signed Message:\n');
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
