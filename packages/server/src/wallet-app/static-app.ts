import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { Tags } from '../http/route-docs.ts';
import { binaryBody, ErrorBody } from '../http/schema.ts';

/**
 * The wallet app's build (packages/wallet-app, built by `npm install`): index.html and the hashed
 * files under assets/.
 */
export const WALLET_APP_DIST = join(dirname(createRequire(import.meta.url).resolve('@wallet-service/wallet-app/package.json')), 'dist');

/**
 * The paths that open the app, each answered with its index.html; the app's router picks the screen.
 * `/` carries the App2App universal link (`/?target=/a2a?request_key=K`), `/claim/<id>` an escrow
 * claim link (its secret is in the fragment, which browsers never send).
 */
export const WALLET_APP_PATHS = ['/', '/sign-in', '/sign-up', '/account', '/claim/:claim_id', '/cards', '/cards/:nft_id/:card_id', '/cards/:nft_id/:card_id/send', '/activity', '/send', '/receive'];

/**
 * No inline script or style anywhere in the build, so none is allowed; the app talks to this
 * origin only; card pictures may come from any https host (the storage's public URL). The page
 * cannot be framed (clickjacking) and sends no referrer (a claim link's path names its claim).
 */
export const WALLET_APP_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; media-src 'self' https: data:; connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/** A page of the app, documented the same whether the app is built or not (its files are not listed). */
function pageSchema(path: string) {
  const names = [...path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
  const params = names.length > 0 ? { params: Type.Object(Object.fromEntries(names.map((name) => [name, Type.String()]))) } : {};
  // A path parameter the router cannot read (bad percent-encoding, too long) is refused with 400.
  const refused = names.length > 0 ? { 400: ErrorBody } : {};
  return { summary: `The wallet app at ${path}`, tags: [Tags.pages], ...params, response: { 200: binaryBody(['text/html'], "the wallet app's index.html"), ...refused, 503: ErrorBody } };
}

/** Serves the built wallet app at the service's root, or says how to build it when it is missing. */
export const walletAppStaticRoutes: FastifyPluginAsync<{ distDir?: string }> = async (app, options) => {
  const distDir = options.distDir ?? WALLET_APP_DIST;
  if (!existsSync(join(distDir, 'index.html'))) {
    for (const path of [...WALLET_APP_PATHS, '/assets/*']) {
      app.get(path, { schema: path === '/assets/*' ? { hide: true } : pageSchema(path) }, async (_request, reply) =>
        reply.status(503).headers(WALLET_APP_HEADERS).send({
          code: 503,
          err: 'service unavailable',
          message: 'the wallet app is not built: run npm install (or npm run build --workspace @wallet-service/wallet-app)',
        }),
      );
    }
    return;
  }
  await app.register(fastifyStatic, {
    root: join(distDir, 'assets'),
    prefix: '/assets/',
    index: false,
    wildcard: true,
    // The names carry a hash of the content: a changed file is a new name.
    immutable: true,
    maxAge: '365d',
    setHeaders: (response) => {
      for (const [name, value] of Object.entries(WALLET_APP_HEADERS)) response.header(name, value);
    },
  });
  for (const path of WALLET_APP_PATHS) {
    app.get(path, { schema: pageSchema(path) }, async (_request, reply) =>
      // index.html names the current hashed files: never kept, so a new build is picked up at once.
      reply.headers(WALLET_APP_HEADERS).header('cache-control', 'no-store').sendFile('index.html', distDir, { cacheControl: false }),
    );
  }
};

/**
 * Any other page a browser opens gets the app with 404, so the member reads the app's own "page
 * not found" with the way back to the wallet; API paths and other clients keep the JSON 404. Run
 * from the app's not-found handler (a catch-all route would also catch the paths the router
 * refuses with 400, such as an over-long path parameter). Whether it answered.
 */
export async function sendAppNotFoundPage(request: FastifyRequest, reply: FastifyReply, distDir = WALLET_APP_DIST): Promise<boolean> {
  if ((request.method !== 'GET' && request.method !== 'HEAD') || !opensAppPage(request.url, request.headers.accept)) return false;
  let page: Buffer;
  try {
    page = await readFile(join(distDir, 'index.html'));
  } catch {
    return false; // not built: the JSON 404
  }
  await reply.status(404).headers(WALLET_APP_HEADERS).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page);
  return true;
}

/** A browser's navigation (it asks for HTML) to a path outside the APIs and the app's own files. */
export function opensAppPage(url: string, accept: string | undefined): boolean {
  return /\btext\/html\b/.test(accept ?? '') && !/^\/(v2|assets|examples|openapi|health|metrics)(\/|\.|$|\?)/.test(url);
}
