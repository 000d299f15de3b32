import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openTestApp } from './test-services.ts';

/** Where `npm run openapi` writes the document; a test fails when it differs from what the code produces. */
export const OPENAPI_DOCUMENT_PATH = fileURLToPath(new URL('../../../../docs/openapi.json', import.meta.url));

/**
 * The OpenAPI document as the code produces it, in its committed form (2-space JSON). Built on a
 * fresh installation with the default configuration, so it is the same on every machine.
 */
export async function producedOpenApiDocument(): Promise<string> {
  const { app, cleanup } = await openTestApp();
  try {
    await app.ready();
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await cleanup();
  }
}

/** The committed document, or '' when there is none. */
export function committedOpenApiDocument(): string {
  try {
    return readFileSync(OPENAPI_DOCUMENT_PATH, 'utf8');
  } catch {
    return '';
  }
}
