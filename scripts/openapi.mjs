#!/usr/bin/env node
// Writes the OpenAPI document the service produces (GET /openapi.json) to docs/openapi.json, then
// the SDK's and the wallet app's wire types generated from it (packages/sdk/src/generated/openapi.ts,
// packages/wallet-app/src/generated/openapi.ts).
// Usage: npm run openapi
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { GENERATED_PATH, generatedWireTypes } from '../packages/sdk/scripts/generate-types.mjs';
import { GENERATED_PATH as APP_GENERATED_PATH, generatedAppTypes } from '../packages/wallet-app/scripts/generate-types.mjs';

const { producedOpenApiDocument, OPENAPI_DOCUMENT_PATH } = await tsImport('../packages/server/src/testing/openapi-document.ts', import.meta.url);
const document = await producedOpenApiDocument();
writeFileSync(OPENAPI_DOCUMENT_PATH, document);
console.log(`wrote ${OPENAPI_DOCUMENT_PATH}`);
mkdirSync(dirname(GENERATED_PATH), { recursive: true });
writeFileSync(GENERATED_PATH, await generatedWireTypes(document));
console.log(`wrote ${GENERATED_PATH}`);
mkdirSync(dirname(APP_GENERATED_PATH), { recursive: true });
writeFileSync(APP_GENERATED_PATH, await generatedAppTypes(document));
console.log(`wrote ${APP_GENERATED_PATH}`);
