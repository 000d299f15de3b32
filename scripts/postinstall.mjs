#!/usr/bin/env node
// npm install's last step. The install scripts of better-sqlite3 are not approved in allowScripts:
// 13 ships prebuilt Node-API binaries and needs none, yet installed from a lockfile npm runs
// node-gyp for it all the same (npm/cli#9837), which needs Node.js headers and make. 12, installed
// as better-sqlite3-node20 for Node.js 20 (see packages/server/src/store/database.ts), does need
// its script: a binary built for the Node.js that runs it. So it is run here, on Node.js 20 only,
// and only when the binary it built before does not load.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

if (Number(process.versions.napi) >= 10) process.exit(0);

const require = createRequire(new URL('../packages/server/package.json', import.meta.url));
let packageDir;
try {
  packageDir = dirname(require.resolve('better-sqlite3-node20/package.json'));
} catch {
  // An optional dependency npm did not install; the store says so if it is needed.
  process.exit(0);
}
try {
  const Database = require('better-sqlite3-node20');
  new Database(':memory:').close();
  process.exit(0);
} catch {
  // Not built yet, or built for another Node.js.
}
const { install } = JSON.parse(readFileSync(`${packageDir}/package.json`, 'utf8')).scripts;
console.log(`better-sqlite3-node20 for Node.js ${process.version}: ${install}`);
// node-gyp downloads the headers of this Node.js unless told where they are; an installation that
// ships them (Debian's nodejs, the official tarballs) needs no network for them.
const env = { ...process.env };
const prefix = dirname(dirname(process.execPath));
if (!env.npm_config_nodedir && existsSync(join(prefix, 'include', 'node', 'node.h'))) env.npm_config_nodedir = prefix;
// A compiler's output is long: shown only when the build fails.
const built = spawnSync(install, { cwd: packageDir, shell: true, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
if (built.status !== 0) {
  process.stdout.write(built.stdout ?? '');
  process.stderr.write(built.stderr ?? '');
  console.error(`better-sqlite3-node20: the build failed; on Node.js 20 the SQLite store cannot open without it`);
  process.exit(1);
}
