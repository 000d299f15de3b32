import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { SecuritySchemes, Tags } from '../http/route-docs.ts';

/**
 * Registers @fastify/swagger, which builds the OpenAPI 3.1 document from the schemas of every
 * route registered after it (app.ts registers it first). No `servers`: the docs page and clients
 * call the origin that served the document, and the committed copy is the same everywhere.
 */
export async function registerOpenApiDocument(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    // Every operation gets an id from its method and path, and no security unless its family names one.
    transform: ({ schema, url, route }) => ({
      url,
      schema: { operationId: operationIdOf(String(route.method), url), security: [], ...(schema as object) } as never,
    }),
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Wallet service API',
        version: '2',
        summary: "The partner card API (Family A), the App2App API (Family B) and the wallet app's API",
        description:
          'Errors carry a stable code of the registry (docs/errors.md). Family A answers `{ code, err }`; Family B the ' +
          'same pair, or the keyed body of a request key in error. Every path starts with /v2/.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: '/', description: 'the service that serves this document' }],
      tags: [
        { name: Tags.partnerApi, description: 'A1 to A20 and the invite: partner sign-in, uploads, minting, sending, lists, escrow, receipts. Closed after the partner program ends (440).' },
        { name: Tags.a2a, description: 'B1 prepare, B2 links and QR codes, B3 result (long-poll with `wait`), B4 card query. No authentication; open CORS.' },
        { name: Tags.walletApp, description: 'What the wallet app uses: member sessions, App2App approval, held cards, escrow claims.' },
        { name: Tags.cardsAndFiles, description: "Public card metadata (every card's card_uri) and uploaded public files." },
        { name: Tags.service, description: 'Health and this document.' },
        { name: Tags.pages, description: 'HTML pages: the wallet app and the example BApp.' },
      ],
      components: {
        securitySchemes: {
          [SecuritySchemes.partnerAccessToken]: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'The access_token of A1, as the raw header value (no `Bearer`); valid 24 hours.',
          },
          [SecuritySchemes.memberSession]: {
            type: 'http',
            scheme: 'bearer',
            description: 'The session_token of `POST /v2/wallet-app/sessions` (API clients); the wallet app sends the `wallet_session` cookie instead, with `X-Wallet-App: 1` on writes.',
          },
        },
      },
    },
  });
}

/** `POST /v2/partner/auth` → `postV2PartnerAuth`; a trailing slash adds `Index` (A2 has both forms). */
export function operationIdOf(method: string, url: string): string {
  const words = url.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const name = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('') || 'Root';
  return `${method.toLowerCase()}${name}${url.length > 1 && url.endsWith('/') ? 'Index' : ''}`;
}
