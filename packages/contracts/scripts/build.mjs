// Compiles the contracts and writes src/generated/*.ts. Run with `npm run build:contracts`.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CompilationError, compileContracts, generatedDir, packageDir } from './compile.mjs';

let files;
try {
  files = compileContracts({ onWarning: (message) => console.warn(message) });
} catch (error) {
  console.error(error instanceof CompilationError ? error.message : error);
  process.exit(1);
}

mkdirSync(path.join(packageDir, generatedDir), { recursive: true });
for (const [file, contents] of Object.entries(files)) {
  writeFileSync(path.join(packageDir, file), contents);
  console.log(`wrote ${path.join('packages/contracts', file)}`);
}
