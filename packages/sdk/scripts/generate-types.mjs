#!/usr/bin/env node
// Writes src/generated/openapi.ts, the wire types of Family B (the paths under /v2/a2a/, which the
// library wraps), from the service's OpenAPI document (docs/openapi.json, which `npm run openapi`
// writes first). Usage: npm run openapi
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DOCUMENT_PATH = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
export const GENERATED_PATH = fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url));

/** The generated module's text for a document (JSON text). */
export async function generatedWireTypes(documentText) {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const document = JSON.parse(documentText);
  document.paths = Object.fromEntries(Object.entries(document.paths).filter(([path]) => path.startsWith('/v2/a2a/')));
  const ast = await openapiTS(document, { alphabetize: false, exportType: false });
  return `// Generated from docs/openapi.json by packages/sdk/scripts/generate-types.mjs (npm run openapi). Do not edit.\n\n${astToString(ast)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(dirname(GENERATED_PATH), { recursive: true });
  writeFileSync(GENERATED_PATH, await generatedWireTypes(readFileSync(DOCUMENT_PATH, 'utf8')));
  console.log(`wrote ${GENERATED_PATH}`);
}
