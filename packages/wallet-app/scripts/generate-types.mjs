#!/usr/bin/env node
// Writes src/generated/openapi.ts, the wire types of what the wallet app calls (the paths under
// /v2/wallet-app/, the card query B4 and card metadata), from the service's OpenAPI document
// (docs/openapi.json, which `npm run openapi` writes first), as the SDK's are generated.
// Usage: npm run openapi
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DOCUMENT_PATH = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
export const GENERATED_PATH = fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url));

/** The paths the app calls: its own API and the two public read-only routes beside it. */
const appPath = (path) => path.startsWith('/v2/wallet-app/') || path === '/v2/a2a/cards' || path.startsWith('/v2/metadata/');

/** The generated module's text for a document (JSON text). */
export async function generatedAppTypes(documentText) {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const document = JSON.parse(documentText);
  document.paths = Object.fromEntries(Object.entries(document.paths).filter(([path]) => appPath(path)));
  const ast = await openapiTS(document, { alphabetize: false, exportType: false });
  return `// Generated from docs/openapi.json by packages/wallet-app/scripts/generate-types.mjs (npm run openapi). Do not edit.\n\n${astToString(ast)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(dirname(GENERATED_PATH), { recursive: true });
  writeFileSync(GENERATED_PATH, await generatedAppTypes(readFileSync(DOCUMENT_PATH, 'utf8')));
  console.log(`wrote ${GENERATED_PATH}`);
}
