#!/usr/bin/env node
// npm run bench [-- <name>...]: runs packages/*/bench/<name>.bench.ts (all of them by default).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const benches = [];
for (const workspace of readdirSync(join(root, 'packages'))) {
  const directory = join(root, 'packages', workspace, 'bench');
  if (!existsSync(directory)) continue;
  for (const file of readdirSync(directory)) {
    if (file.endsWith('.bench.ts')) benches.push({ name: file.replace(/\.bench\.ts$/, ''), path: join(directory, file) });
  }
}
const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !benches.some((bench) => bench.name === name));
if (unknown.length) {
  console.error(`unknown benchmark ${unknown.join(', ')}; known: ${benches.map((bench) => bench.name).join(', ')}`);
  process.exit(1);
}
let ok = true;
for (const bench of benches.filter((bench) => wanted.length === 0 || wanted.includes(bench.name))) {
  console.log(`\n== bench ${bench.name}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', bench.path], { cwd: root, stdio: 'inherit' });
  ok = ok && result.status === 0;
}
process.exit(ok ? 0 : 1);
