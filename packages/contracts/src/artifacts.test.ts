// The generated modules in src/generated are committed. This test recompiles the Solidity
// sources in memory and fails if any committed module differs from what they produce now.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { compileContracts, packageDir } from '../scripts/compile.mjs';

test('committed contract artifacts match the Solidity sources', () => {
  const expected = compileContracts();
  assert.ok(Object.keys(expected).length > 0, 'no artifacts produced');

  for (const [file, contents] of Object.entries(expected)) {
    const committedPath = path.join(packageDir, file);
    const hint = `packages/contracts/${file} is out of date with the Solidity sources; run \`npm run build:contracts\``;
    assert.ok(existsSync(committedPath), `packages/contracts/${file} is missing; run \`npm run build:contracts\``);
    // Compare as strings first so a mismatch does not print a 25 kB diff.
    assert.ok(readFileSync(committedPath, 'utf8') === contents, hint);
  }
});
