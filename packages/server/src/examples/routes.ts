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

/** The example dapp's build (examples/dapp, built by `npm install` with Vite): its page and its hashed assets. */
export const EXAMPLE_DAPP_DIST = new URL('examples/dapp/dist/', repositoryRoot);
const DAPP_ASSET = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.(js|css)$/;
const ASSET_TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };
const DAPP_NOT_BUILT = 'the example dapp is not built: run npm install (or npm run build --workspace @wallet-service/example-dapp)';

const HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

/**
 * GET /examples/dapp/: a dapp written with React, wagmi and viem that reaches the wallet through
 * the SDK's wagmi connector; served from its Vite build.
 */
const exampleDappRoutes: FastifyPluginAsync = async (app) => {
  const redirect = { description: 'to /examples/dapp/', type: 'null' };
  app.get('/examples/dapp', { schema: { summary: 'The example dapp (redirects to /examples/dapp/)', tags: [Tags.pages], response: { 302: redirect } } }, async (_request, reply) => reply.redirect('/examples/dapp/'));
  const page = { summary: 'The example dapp: its page', tags: [Tags.pages], response: { 200: binaryBody(['text/html'], "the example dapp's page"), 503: ErrorBody } };
  app.get('/examples/dapp/', { schema: page }, async (_request, reply) => {
    const body = await readFile(new URL('index.html', EXAMPLE_DAPP_DIST)).catch(() => null);
    if (!body) return reply.status(503).headers(HEADERS).send({ code: 503, err: 'service unavailable', message: DAPP_NOT_BUILT });
    return reply.headers(HEADERS).type('text/html; charset=utf-8').send(body);
  });
  const asset = {
    summary: 'The example dapp: a built script or style sheet',
    tags: [Tags.pages],
    params: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    response: { 200: binaryBody(['text/javascript', 'text/css'], "one of the example dapp's built files"), 400: ErrorBody, 404: ErrorBody },
  };
  app.get<{ Params: { name: string } }>('/examples/dapp/assets/:name', { schema: asset }, async (request, reply) => {
    const { name } = request.params;
    // Only plain names of the build's own kinds: nothing outside dist/assets can be named.
    const body = DAPP_ASSET.test(name) ? await readFile(new URL(`assets/${name}`, EXAMPLE_DAPP_DIST)).catch(() => null) : null;
    if (!body) return reply.status(404).headers(HEADERS).send({ code: 404, err: 'not Found' });
    // Hashed names: a file never changes under its name.
    return reply.headers({ ...HEADERS, 'cache-control': 'public, max-age=31536000, immutable' }).type(ASSET_TYPES[name.split('.').pop()!]!).send(body);
  });
};

/**
 * GET /examples/bapp/: a small BApp page built on the SDK's browser bundle (connect, disconnect,
 * send coin, sign a message, list cards), served from the files as they are on disk.
 */
export const exampleRoutes: FastifyPluginAsync = async (app) => {
  await app.register(exampleDappRoutes);
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
