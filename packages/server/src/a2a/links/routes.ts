import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { AppError } from '../../errors/app-error.ts';
import { buildRequestLinks, qrPng, qrSvg } from './commands.ts';
import { RequestKeyError } from '../requests/errors.ts';
import { readResult } from '../requests/commands.ts';
import { Errors } from '../../errors/codes.ts';

const Region = Type.Optional(Type.Union([Type.Literal('default'), Type.Literal('global')], { description: 'global: the {a2a_url_global} links' }));

export const LinksQuery = Type.Object({ request_key: Type.String(), region: Region });
export const QrQuery = Type.Object({
  request_key: Type.String(),
  format: Type.Optional(Type.Union([Type.Literal('png'), Type.Literal('svg')])),
  region: Region,
});

export const LinksResponse = Type.Object({
  request_key: Type.String(),
  region: Type.String(),
  universal_link: Type.String(),
  ios_scheme_link: Type.String(),
  android_intent_link: Type.String(),
  qr_text: Type.String(),
  qr_png_url: Type.String(),
  qr_svg_url: Type.String(),
});

/** GET /v2/a2a/links and GET /v2/a2a/qr: the B2 links of a live request key. */
export const linksRoutes: FastifyPluginAsync = async (plugin) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/links', { schema: { querystring: LinksQuery, response: { 200: LinksResponse } } }, async (request) => {
    const key = await liveKey(request.query.request_key);
    return buildRequestLinks(app.services.config, key, request.query.region);
  });

  app.get('/qr', { schema: { querystring: QrQuery } }, async (request, reply) => {
    const key = await liveKey(request.query.request_key);
    const links = buildRequestLinks(app.services.config, key, request.query.region);
    reply.header('cache-control', 'no-store');
    if (request.query.format === 'svg') return reply.type('image/svg+xml').send(await qrSvg(links.qr_text));
    return reply.type('image/png').send(await qrPng(links.qr_text));
  });

  /** Links are only made for keys that exist (6000) and have not expired unfinished (6001). */
  async function liveKey(requestKey: string): Promise<string> {
    const answer = await readResult(app.services, requestKey);
    if (answer.marker === null) throw new AppError(Errors.RequestKeyUnknown);
    const body = answer.body as { request_key: string; expiration_time: number; error?: { code?: number } };
    if (body.error?.code === Errors.RequestKeyExpired) throw new RequestKeyError(Errors.RequestKeyExpired, body.request_key, body.expiration_time);
    return body.request_key;
  }
};
