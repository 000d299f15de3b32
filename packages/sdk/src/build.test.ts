import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runInNewContext } from 'node:vm';
import * as source from './index.ts';
import * as providerSource from './provider/index.ts';
import * as wagmiSource from './wagmi/index.ts';
import { BASE, fakeFetch, KEY } from './testing/fake-fetch.ts';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
const REBUILD = 'run `npm install` (or `npm run build --workspace @wallet-service/sdk`)';
const exported = Object.keys(source).sort();

function built(path: string): string {
  const file = join(dist, path);
  assert.ok(existsSync(file), `${file} is missing: ${REBUILD}`);
  return file;
}

/**
 * The publishable outputs that `prepare` builds on install: the ES module with declarations, the
 * CommonJS file and the browser bundle each expose the whole API of the sources.
 */
describe('SDK build outputs', () => {
  test('are newer than every source file', () => {
    const bundle = statSync(built('browser/wallet-a2a.js')).mtimeMs;
    const sources = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.startsWith('testing'),
    );
    for (const file of sources) {
      assert.ok(statSync(join(root, 'src', file)).mtimeMs <= bundle, `src/${file} changed after the last build: ${REBUILD}`);
    }
  });

  test('the ES module and its declarations', async () => {
    const module = (await import(built('esm/index.js'))) as Record<string, unknown>;
    assert.deepEqual(Object.keys(module).sort(), exported);
    const declarations = readFileSync(built('esm/index.d.ts'), 'utf8');
    for (const name of ['createClient', 'configure', 'prepare', 'waitForResult', 'disconnect']) assert.match(declarations, new RegExp(`\\b${name}\\b`));
    assert.match(readFileSync(built('esm/types.d.ts'), 'utf8'), /export interface ResultByType/);
  });

  test('the CommonJS file, with declarations typed as CommonJS', () => {
    const module = createRequire(import.meta.url)(built('cjs/index.cjs')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(module).sort(), exported);
    assert.deepEqual(JSON.parse(readFileSync(built('cjs/package.json'), 'utf8')), { type: 'commonjs' });
    assert.ok(existsSync(built('cjs/index.d.ts')));
  });

  test('a TypeScript consumer gets the declarations through import and through require', () => {
    const consumer = mkdtempSync(join(root, '.tmp-consumer-'));
    try {
      const use = (from: string) => `${from}
const a2a = createClient({ baseUrl: 'https://a2a.example' });
export async function connect(): Promise<string | null> {
  const prepared = await a2a.prepare.auth({ bappName: 'Typed' });
  if (isError(prepared)) return prepared.err;
  const answer = await a2a.waitForResult(prepared.request_key, { timeoutMs: 1000 });
  if (answer.status === 'completed') return answer.result.main_address;
  // @ts-expect-error an auth result has no tx_hash
  if (answer.status === 'completed') return answer.result.tx_hash;
  return null;
}
`;
      writeFileSync(join(consumer, 'esm.mts'), use(`import { createClient, isError } from '@wallet-service/sdk';`));
      writeFileSync(join(consumer, 'cjs.cts'), use(`import sdk = require('@wallet-service/sdk');\nconst { createClient, isError } = sdk;`));
      const compilerOptions = { noEmit: true, strict: true, module: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [] };
      writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['esm.mts', 'cjs.cts'] }));
      const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
      const checked = spawnSync(process.execPath, [tsc, '-p', consumer], { encoding: 'utf8' });
      assert.equal(checked.status, 0, checked.stdout + checked.stderr);
    } finally {
      rmSync(consumer, { recursive: true, force: true });
    }
  });

  test('the package exports point at the built files', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const targets = [manifest.main, manifest.module, manifest.types, manifest.exports['./browser']];
    for (const condition of Object.values(manifest.exports['.'] as Record<string, Record<string, string>>)) targets.push(...Object.values(condition));
    for (const subpath of ['./provider', './wagmi']) {
      for (const condition of Object.values(manifest.exports[subpath] as Record<string, Record<string, string>>)) targets.push(...Object.values(condition));
    }
    targets.push(manifest.exports['./browser/provider']);
    for (const target of targets) assert.ok(existsSync(join(root, target)), `${target} is missing: ${REBUILD}`);
  });

  test('the subpaths /provider and /wagmi, as ES modules and CommonJS, export what their sources do', async () => {
    const require = createRequire(import.meta.url);
    for (const [subpath, sourceModule] of [['provider', providerSource], ['wagmi', wagmiSource]] as const) {
      const names = Object.keys(sourceModule).sort();
      assert.deepEqual(Object.keys(await import(built(`esm/${subpath}/index.js`))).sort(), names, subpath);
      assert.deepEqual(Object.keys(require(built(`cjs/${subpath}.cjs`))).sort(), names, subpath);
      assert.ok(existsSync(built(`esm/${subpath}/index.d.ts`)));
    }
    // wagmi and viem stay the dapp's own copies.
    assert.match(readFileSync(built('cjs/wagmi.cjs'), 'utf8'), /require\("@wagmi\/core"\)/);
  });

  test('the browser provider bundle defines WalletA2AProvider and answers eth_chainId in a page', async () => {
    const code = readFileSync(built('browser/wallet-a2a-provider.js'), 'utf8');
    assert.doesNotMatch(code, /\brequire\(|\bimport\s*[{(*]|\bexport\s/, 'no module syntax');
    const fake = fakeFetch({ body: { chains: [{ chain: 'main', chain_id: 31337, rpc_url: `${BASE}/v2/a2a/rpc/main` }] } });
    const page: Record<string, unknown> = { location: { origin: BASE }, fetch: fake.fetch, URL, URLSearchParams, AbortController, setTimeout, clearTimeout, Response };
    page.window = page;
    runInNewContext(code, page);
    const { createProvider } = page.WalletA2AProvider as typeof providerSource;
    const provider = createProvider({ bappName: 'Page', storage: null });
    assert.equal(await provider.request({ method: 'eth_chainId' }), '0x7a69');
    assert.equal(fake.calls[0]!.url, `${BASE}/v2/a2a/chains`);
  });

  test('the browser bundle is one script that defines WalletA2A and works in a page', async () => {
    const code = readFileSync(built('browser/wallet-a2a.js'), 'utf8');
    assert.doesNotMatch(code, /\brequire\(|\bimport\s*[{(*]|\bexport\s/, 'no module syntax');
    const fake = fakeFetch({ body: { request_key: KEY, status: 'prepared', expiration_time: 1 } });
    const page: Record<string, unknown> = { location: { origin: BASE }, fetch: fake.fetch, URL, URLSearchParams, AbortController, setTimeout, clearTimeout };
    page.window = page;
    runInNewContext(code, page);
    const WalletA2A = page.WalletA2A as typeof source;
    assert.deepEqual(Object.keys(WalletA2A).sort(), exported);
    const prepared = await WalletA2A.prepare.auth({ bappName: 'Page' });
    assert.equal(JSON.stringify(prepared), JSON.stringify({ request_key: KEY, status: 'prepared', expiration_time: 1, type: 'auth' }));
    assert.equal(fake.calls[0]!.url, `${BASE}/v2/a2a/prepare`, 'the page origin is the default base URL');
  });
});
