#!/usr/bin/env node
// Writes the OpenAPI document the service produces (GET /openapi.json) to docs/openapi.json.
// Usage: npm run openapi
import { writeFileSync } from 'node:fs';
import { tsImport } from 'tsx/esm/api';

const { producedOpenApiDocument, OPENAPI_DOCUMENT_PATH } = await tsImport('../packages/server/src/testing/openapi-document.ts', import.meta.url);
writeFileSync(OPENAPI_DOCUMENT_PATH, await producedOpenApiDocument());
console.log(`wrote ${OPENAPI_DOCUMENT_PATH}`);
