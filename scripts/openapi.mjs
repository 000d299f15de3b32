#!/usr/bin/env node
// Writes the OpenAPI document the service produces (GET /openapi.json) to docs/openapi.json, then
// the SDK's wire types generated from it (packages/sdk/src/generated/openapi.ts).
// Usage: npm run openapi
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { GENERATED_PATH, generatedWireTypes } from '../packages/sdk/scripts/generate-types.mjs';

const { producedOpenApiDocument, OPENAPI_DOCUMENT_PATH } = await tsImport('../packages/server/src/testing/openapi-document.ts', import.meta.url);
const document = await producedOpenApiDocument();
writeFileSync(OPENAPI_DOCUMENT_PATH, document);
console.log(`wrote ${OPENAPI_DOCUMENT_PATH}`);
mkdirSync(dirname(GENERATED_PATH), { recursive: true });
writeFileSync(GENERATED_PATH, await generatedWireTypes(document));
console.log(`wrote ${GENERATED_PATH}`);
