import type { FastifyInstance } from 'fastify';
import type { ErrorResponses } from './schema.ts';

/** The document's tags, one per family or kind of route (described in openapi/document.ts). */
export const Tags = {
  partnerApi: 'Family A: partner API',
  a2a: 'Family B: App2App',
  walletApp: 'Wallet-app API',
  cardsAndFiles: 'Card metadata and files',
  service: 'Service',
  pages: 'Pages',
} as const;

/** The document's security schemes: Family A's raw access token, the wallet-app's Bearer session. */
export const SecuritySchemes = { partnerAccessToken: 'partnerAccessToken', memberSession: 'memberSession' } as const;

/** How the routes of one family are documented: its tag, who may call it, the errors it answers. */
export interface FamilyDocs {
  tag: string;
  /** OpenAPI security requirement of the family's routes; a route's own `security` (e.g. `[]`) wins. */
  security?: Array<Record<string, string[]>>;
  /** The family's error bodies; a route's own schema for a status wins. */
  errors: ErrorResponses;
}

/**
 * Completes the schema of every route later registered in `app`'s context with its family's tag,
 * security and error answers, so each route states only its own part. The answers serialize the
 * errors too (fast-json-stringify keeps only what they name). Hidden routes are left alone.
 */
export function documentFamilyRoutes(app: FastifyInstance, docs: FamilyDocs): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema ?? {};
    if (schema.hide) return;
    route.schema = {
      tags: [docs.tag],
      ...(docs.security ? { security: docs.security } : {}),
      ...schema,
      response: { ...docs.errors, ...(schema.response as object | undefined) },
    };
  });
}
