import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { defaultConfig, type Config } from '../config/config.ts';
import { createLogger } from './logger.ts';
import { maskUrl, redactLine } from './redaction.ts';

const RPC_URL = 'https://rpc-user:rpc-pass-9981@rpc.example.com/v3/0123456789abcdef0123456789abcdef?apikey=QUERYKEY998877';
const DATABASE_URL = 'postgres://wallet:db-pass-4455@db.internal:5432/wallet';

function configWithSecrets(): Config {
  const config = defaultConfig();
  return {
    ...config,
    databaseUrl: DATABASE_URL,
    masterKey: 'ab'.repeat(32),
    chains: { ...config.chains, main: { mode: 'external', rpcUrl: RPC_URL, chainId: 8217, messagePrefix: '\x19Klaytn Signed Message:\n' } },
    metrics: { ...config.metrics, token: 'metrics-token-5566778899' },
    storage: { kind: 's3', bucket: 'cards', region: 'auto', accessKeyId: 'AKIA-ACCESS-123456', secretAccessKey: 's3-secret-key-abcdef123' },
  };
}

function capturingLogger(config: Config) {
  let captured = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      captured += chunk.toString();
      callback();
    },
  });
  return { log: createLogger({ level: 'trace', destination: destination as never, config }), captured: () => captured };
}

test("the configuration's secrets are masked in every line: objects, messages and error stacks", () => {
  const config = configWithSecrets();
  const { log, captured } = capturingLogger(config);
  log.info({ config }, 'configuration');
  log.error(new Error(`HTTP request failed. URL: ${RPC_URL}`));
  log.warn(`store: connecting to ${DATABASE_URL}`);
  log.debug(`rpc key ${encodeURIComponent('rpc-pass-9981')} and ${'0123456789abcdef0123456789abcdef'}`);

  const text = captured();
  for (const value of ['rpc-pass-9981', '0123456789abcdef0123456789abcdef', 'QUERYKEY998877', 'db-pass-4455', 'ab'.repeat(32), 'metrics-token-5566778899', 'AKIA-ACCESS-123456', 's3-secret-key-abcdef123']) {
    assert.equal(text.includes(value), false, `${value} in\n${text}`);
  }
  const [logged] = text.split('\n').map((line) => (line ? JSON.parse(line) : {}));
  // A URL marked secretUrl keeps what locates the node; the whole secrets are replaced.
  assert.equal(logged.config.chains.main.rpcUrl, 'https://[redacted]@rpc.example.com/[redacted]?[redacted]');
  assert.equal(logged.config.databaseUrl, 'postgres://[redacted]@db.internal:5432/[redacted]');
  assert.equal(logged.config.masterKey, '[redacted]');
  assert.equal(logged.config.storage.secretAccessKey, '[redacted]');
  assert.equal(logged.config.publicUrl, 'http://127.0.0.1:3000');
  assert.match(text, /HTTP request failed\. URL: https:\/\/rpc-user:\[redacted\]@rpc\.example\.com\/v3\/\[redacted\]\?apikey=\[redacted\]/);
});

test('headers and field names are redacted at any depth and in any case; a line that names one but is not JSON is withheld', () => {
  const line = JSON.stringify({ level: 30, msg: 'x', outer: { list: [{ deeper: { Authorization: 'Bearer abc', Mnemonic: 'seed words', keep: 'ok' } }] } });
  assert.deepEqual(JSON.parse(redactLine(line)).outer.list[0].deeper, { Authorization: '[redacted]', Mnemonic: '[redacted]', keep: 'ok' });
  const broken = redactLine('{"privateKey":"hunter22", oops');
  assert.equal(broken.includes('hunter22'), false);
});

test('maskUrl leaves a URL without credentials as it is and hides user, path and query', () => {
  assert.equal(maskUrl('http://127.0.0.1:8545'), 'http://127.0.0.1:8545');
  assert.equal(maskUrl('wss://key@node.example.com/ws/abcdef'), 'wss://[redacted]@node.example.com/[redacted]');
  assert.equal(maskUrl('not a url'), '[redacted]');
});
