#!/usr/bin/env node
// Runs `npm test` on another Node.js line: node scripts/test-on-node.mjs <major> [-- <path filter>...]
//
// Node.js builds come from the npm registry: node-<platform>-<arch>@<major> holds bin/node (and
// the headers under include/node) and has no install scripts, unlike the `node` package, whose
// preinstall script fetches it. It is unpacked once into node_modules/.cache/node-<major> (delete
// that to take a newer release), outside the project's dependencies, and put first on PATH for npm test. Nothing is rebuilt: on Node.js
// 22.14 and later the store loads better-sqlite3 13, prebuilt on Node-API (see store/database.ts),
// and secp256k1 ships Node-API binaries too.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const [major, ...rest] = process.argv.slice(2);
if (!/^\d+$/.test(major ?? '')) {
  console.error('usage: node scripts/test-on-node.mjs <major> [-- <path filter>...]');
  process.exit(2);
}
const testArgs = rest[0] === '--' ? rest.slice(1) : rest;

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  return result.status === 0;
}

/** The newest Node.js <major>, unpacked once per checkout; its directory. */
function fetchNode() {
  const directory = join(root, 'node_modules', '.cache', `node-${major}`);
  if (existsSync(join(directory, 'bin', 'node'))) return directory;
  const downloads = mkdtempSync(join(tmpdir(), `node-${major}-`));
  try {
    const spec = `node-${process.platform}-${process.arch}@${major}`;
    if (!run('npm', ['pack', spec, '--pack-destination', downloads, '--silent'], { stdio: ['ignore', 'ignore', 'inherit'] })) {
      throw new Error(`npm pack ${spec} failed`);
    }
    const [tarball] = readdirSync(downloads).filter((name) => name.endsWith('.tgz'));
    mkdirSync(directory, { recursive: true });
    if (!run('tar', ['-xzf', join(downloads, tarball), '-C', directory, '--strip-components=1'])) {
      rmSync(directory, { recursive: true, force: true });
      throw new Error(`unpacking ${tarball} failed`);
    }
  } finally {
    rmSync(downloads, { recursive: true, force: true });
  }
  return directory;
}

const nodeBin = join(fetchNode(), 'bin');
const version = spawnSync(join(nodeBin, 'node'), ['--version'], { encoding: 'utf8' }).stdout.trim();
console.log(`# Node.js ${version}: npm test ${testArgs.join(' ')}`);
// npm itself is a Node.js script (#!/usr/bin/env node): with this Node first on PATH it runs on it,
// and so do npm test, the test runner and every test process.
// npm run on that Node.js would look for its global settings beside it (its prefix), and so miss
// this machine's (a registry's certificate authority, a proxy) when a test fetches a package: it
// keeps this npm's.
const globalconfig = spawnSync('npm', ['config', 'get', 'globalconfig'], { encoding: 'utf8' }).stdout.trim();
const env = { ...process.env, PATH: `${nodeBin}${delimiter}${process.env.PATH}`, ...(globalconfig ? { npm_config_globalconfig: globalconfig } : {}) };
const ok = run('npm', ['test', '--', ...testArgs], { env });
console.log(`# Node.js ${version}: npm test ${ok ? 'passed' : 'failed'}`);
process.exit(ok ? 0 : 1);
