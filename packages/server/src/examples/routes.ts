import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { FastifyPluginAsync } from 'fastify';
import { Tags } from '../http/route-docs.ts';
import { binaryBody, ErrorBody } from '../http/schema.ts';

// Found through the server's package, not this file's place: the compiled bundle sits elsewhere.
const repositoryRoot = new URL('../../', pathToFileURL(createRequire(import.meta.url).resolve('@wallet-service/server/package.json')));

/** The example BApp's files: the page in examples/bapp and the SDK's browser bundle. */
export const EXAMPLE_BAPP_FILES: Record<string, { url: URL; type: string }> = {
  '': { url: new URL('examples/bapp/index.html', repositoryRoot), type: 'text/html; charset=utf-8' },
  'app.js': { url: new URL('examples/bapp/app.js', repositoryRoot), type: 'text/javascript; charset=utf-8' },
  'style.css': { url: new URL('examples/bapp/style.css', repositoryRoot), type: 'text/css; charset=utf-8' },
  'wallet-a2a.js': { url: new URL('packages/sdk/dist/browser/wallet-a2a.js', repositoryRoot), type: 'text/javascript; charset=utf-8' },
};

const HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

/**
 * GET /examples/bapp/: a small BApp page built on the SDK's browser bundle (connect, disconnect,
 * send coin, sign a message, list cards), served from the files as they are on disk.
 */
export const exampleRoutes: FastifyPluginAsync = async (app) => {
  const redirect = { description: 'to /examples/bapp/', type: 'null' };
  app.get('/examples/bapp', { schema: { summary: 'The example BApp (redirects to /examples/bapp/)', tags: [Tags.pages], response: { 302: redirect } } }, async (_request, reply) => reply.redirect('/examples/bapp/'));
  for (const [name, file] of Object.entries(EXAMPLE_BAPP_FILES)) {
    const type = file.type.split(';')[0]!;
    const schema = { summary: `The example BApp: ${name || 'its page'}`, tags: [Tags.pages], response: { 200: binaryBody([type], `the example BApp's ${name || 'page'}`), 503: ErrorBody } };
    app.get(`/examples/bapp/${name}`, { schema }, async (_request, reply) => {
      let body: Buffer;
      try {
        body = await readFile(file.url);
      } catch {
        const missing = name === 'wallet-a2a.js' ? 'the SDK browser bundle is not built: run npm install (or npm run build --workspace @wallet-service/sdk)' : `${name || 'index.html'} is missing`;
        return reply.status(503).headers(HEADERS).send({ code: 503, err: 'service unavailable', message: missing });
      }
      return reply.headers(HEADERS).type(file.type).send(body);
    });
  }
};
